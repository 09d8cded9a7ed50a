// One ioredis client shared by every Redis-backed store of a process, configured to fail fast:
// a request must get a StoreUnavailableError within about a second when Redis is down or hung,
// never wait in a queue (which would hold requests and memory during an outage).
//   - enableOfflineQueue: false   commands while disconnected reject at once;
//   - maxRetriesPerRequest: 1     at most one retry across a reconnect;
//   - autoResendUnfulfilledCommands: false   a script in flight when the connection drops is
//                                 failed, not silently re-run (a re-run replay advance or claim
//                                 would answer the original caller "replay"/"in progress");
//   - connectTimeout / commandTimeout   bound a dead or hung server;
//   - lazyConnect + connect() with a timeout   startup sees the failure instead of a background
//                                 retry loop; after startup ioredis keeps reconnecting (capped
//                                 backoff) so the stores recover when Redis returns.
// Scripts run with EVALSHA and fall back to EVAL on NOSCRIPT (after a Redis restart or failover).
// Redis must run with `maxmemory-policy noeviction` (an evicted replay record or claim silently
// re-opens a replay or double execution) and AOF on (`appendfsync always` for acknowledged
// revocations to survive a Redis crash, `everysec` bounds the loss to about one second);
// checkServerSettings reports deviations so startup can warn.
import { Redis } from 'ioredis';
import { QuotaExceededError, StoreFullError, StoreUnavailableError } from '../types.js';
import { redisKeys, type RedisKeys } from './keys.js';
import type { LuaScript } from './scripts.js';

export interface RedisConnectionOptions {
  /** Key prefix (see keys.ts); default "veil". */
  readonly prefix?: string;
  /** TCP connect timeout, also the bound on connect(); default 2000 ms. */
  readonly connectTimeoutMs?: number;
  /** A command without a reply within this fails; default 1000 ms. */
  readonly commandTimeoutMs?: number;
  /** Called with connection errors (they are also surfaced per operation). Never sees data. */
  readonly onError?: (error: Error) => void;
}

/**
 * The cause without its payload: an ioredis ReplyError carries the command's arguments (keys,
 * fingerprints, a stored response body), and a caller may log `cause`. Keep name and message only.
 */
function sanitize(error: unknown): Error {
  if (!(error instanceof Error)) return new Error('redis failure');
  const clean = new Error(error.message);
  clean.name = error.name;
  return clean;
}

/** Redis replies meaning "out of memory" (maxmemory reached under noeviction). */
function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && /^OOM\b/.test(error.message);
}

export class RedisConnection {
  readonly keys: RedisKeys;
  private references = 0;
  private closed = false;

  private constructor(
    readonly client: Redis,
    keys: RedisKeys,
    private readonly connectTimeoutMs: number,
  ) {
    this.keys = keys;
  }

  /** Build the client without connecting (the first command or connect() opens it). */
  static create(url: string, options: RedisConnectionOptions = {}): RedisConnection {
    const keys = redisKeys(options.prefix);
    const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      autoResendUnfulfilledCommands: false,
      connectTimeout: connectTimeoutMs,
      commandTimeout: options.commandTimeoutMs ?? 1000,
      // Keep trying in the background with capped backoff; requests meanwhile fail fast.
      retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 6), 2000),
    });
    // Without a listener ioredis prints every reconnect error to the console.
    client.on('error', (error: Error) => options.onError?.(error));
    return new RedisConnection(client, keys, connectTimeoutMs);
  }

  /** Connect and wait until ready; StoreUnavailableError when that does not happen in time. */
  async connect(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`no connection within ${this.connectTimeoutMs} ms`));
      }, this.connectTimeoutMs);
    });
    try {
      await Promise.race([this.client.connect(), timeout]);
    } catch (error) {
      throw new StoreUnavailableError('redis', sanitize(error));
    } finally {
      clearTimeout(timer);
    }
  }

  acquire(): void {
    this.references += 1;
  }

  /** Drop one reference; the client closes with the last. */
  async release(): Promise<void> {
    this.references -= 1;
    if (this.references <= 0) await this.close();
  }

  /** Close the client now, whatever the references. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // Fall through: the connection is going away anyway.
      }
    }
    this.client.disconnect();
  }

  /**
   * Run Redis commands for a store; any failure is StoreUnavailableError (or StoreFullError on OOM
   * when asked). A QuotaExceededError the operation raises on purpose passes through.
   */
  async run<T>(store: string, operation: (client: Redis) => Promise<T>, options: { readonly fullIsStoreFull?: boolean } = {}): Promise<T> {
    try {
      return await operation(this.client);
    } catch (error) {
      if (error instanceof QuotaExceededError) throw error;
      if (options.fullIsStoreFull === true && isOutOfMemory(error)) throw new StoreFullError(store);
      throw new StoreUnavailableError(store, sanitize(error));
    }
  }

  /**
   * True when Redis answers PING within `timeoutMs`. Never throws and never waits longer: while
   * the client is disconnected the command fails at once (no offline queue).
   */
  async ping(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([this.client.ping().then((reply) => reply === 'PONG'), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** EVALSHA, falling back to EVAL when the script cache does not have it. */
  async evalScript(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (keys.length !== script.numberOfKeys) throw new Error(`${script.name} takes ${script.numberOfKeys} keys`);
    try {
      return await this.client.evalsha(script.sha1, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await this.client.eval(script.source, keys.length, ...keys, ...args);
    }
  }

  /**
   * Warnings about server settings that weaken what the stores promise (empty when all is well).
   * Managed services often disable CONFIG: that is reported, not fatal.
   */
  async checkServerSettings(): Promise<string[]> {
    const warnings: string[] = [];
    try {
      const policy = await this.configGet('maxmemory-policy');
      if (policy !== 'noeviction') {
        warnings.push(`Redis maxmemory-policy is ${policy ?? 'unknown'}; use noeviction (eviction can drop replay records, claims or revocations)`);
      }
      const appendOnly = await this.configGet('appendonly');
      if (appendOnly !== 'yes') {
        warnings.push('Redis appendonly is off; a Redis restart loses revocations and idempotency records (use appendonly yes, appendfsync always or everysec)');
      } else {
        const fsync = await this.configGet('appendfsync');
        if (fsync === 'no') warnings.push('Redis appendfsync is no; use always (no loss) or everysec (about one second of loss on a Redis crash)');
      }
    } catch (error) {
      warnings.push(`could not read Redis configuration (${error instanceof Error ? error.message : 'unknown error'}); make sure maxmemory-policy is noeviction and AOF is on`);
    }
    return warnings;
  }

  private async configGet(name: string): Promise<string | undefined> {
    const reply: unknown = await this.client.config('GET', name);
    return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : undefined;
  }
}
