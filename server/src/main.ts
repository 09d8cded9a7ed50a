// Process wiring only: load config, build the app, listen, shut down gracefully; with
// server.workers > 1 the `veil serve` process is the cluster primary (cluster/primary.ts) and
// each forked worker runs startServer.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { FileAuditSink } from './audit/file-sink.js';
import { NerClient } from './clients/ner.js';
import { ConfigError, loadConfig, type LoadedConfig, type VeilConfig } from './config/index.js';
import { runPrimary, WORKER_SLOT_ENV } from './cluster/primary.js';
import { WorkerLink, type ClusterLink } from './cluster/worker.js';
import type { AppDeps, PolicyHolder } from './deps.js';
import type { RequestTracer } from './metrics/observe.js';
import { VeilMetrics } from './metrics/registry.js';
import { createReloadManager, ReloadingApiKeyAuthenticator } from './reload/index.js';
import { deriveCorpusKeys } from './domain/token/index.js';
import { createLogger } from './logging.js';
import { createOffload } from './services/offload.js';
import { memoryBudgetMb, workerHeapMb } from './services/overload.js';
import { followLauncher, launchPlan, openFileLimits, relaunch, replace } from './cli/launcher.js';
import { loadPolicyRegistry } from './services/policies.js';
import { checkDigestKey } from './services/revocation.js';
import { durabilityWarning, openAppStores } from './services/stores.js';
import { withRevocationNotice } from './stores/erasure.js';
import { forgetSessionForms } from './domain/guard/session-forms.js';
import { workerReport } from './routes/diagnostics.js';

/** Set by the bundle (scripts/bundle.mjs define), whose place in dist/ is not this module's. */
declare const __VEIL_VERSION__: string | undefined;

export const VERSION =
  typeof __VEIL_VERSION__ === 'string' ? __VEIL_VERSION__ : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface StartOptions {
  readonly configFile?: string | undefined;
  readonly env: Record<string, string | undefined>;
  readonly overrides?: Record<string, unknown>;
  readonly logStream?: NodeJS.WritableStream;
  /** How to run this command again (`veil serve` from the CLI): set, the process may relaunch itself with limits that fit (cli/launcher.ts). */
  readonly relaunch?: { readonly script: string; readonly args: readonly string[] };
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly logger: Logger;
  readonly deps: AppDeps;
  /** The channel to the primary when this process is a cluster worker. */
  readonly link?: WorkerLink | undefined;
  close(): Promise<void>;
}

/** Process-level pieces startServer hands to buildDeps (tests usually pass none). */
export interface BuildExtras {
  readonly metrics?: VeilMetrics;
  readonly tracer?: RequestTracer | undefined;
  readonly cluster?: ClusterLink | undefined;
  /** This worker's slot (0..N-1) when running as one of several workers. */
  readonly workerSlot?: number | undefined;
  readonly workers?: number | undefined;
}

export async function buildDeps(loaded: LoadedConfig, onWarning: (message: string) => void = () => undefined, extras: BuildExtras = {}): Promise<AppDeps> {
  const config = loaded.config;
  const now = Date.now;
  const registry = loadPolicyRegistry({
    directory: config.policy.directory,
    defaultName: config.policy.default,
    nowUnix: Math.floor(now() / 1000),
  });
  const policies: PolicyHolder = { registry };
  // Reads the API-key file too: a bad one is a startup error, like a bad config.
  const reload = createReloadManager({ loaded, holder: policies, now });
  const metrics = extras.metrics ?? new VeilMetrics();
  // Each revocation empties the output guard's per-state search keys (domain/guard/session-forms.ts): erasure wins.
  const stores = withRevocationNotice(await openAppStores(config, onWarning), forgetSessionForms);
  let keyProblem: string | undefined;
  try {
    keyProblem = await checkDigestKey(stores.revocation, loaded.digestSecret);
  } catch (error) {
    await stores.close();
    throw error;
  }
  if (keyProblem !== undefined) {
    await stores.close();
    throw new ConfigError([keyProblem]);
  }
  let audit: FileAuditSink | undefined;
  if (config.audit.backend === 'file' && config.audit.path !== undefined && loaded.auditKey !== undefined) {
    try {
      // Several workers never share one hash chain: each appends to its own file (`.w<slot>`).
      const path = extras.workerSlot === undefined ? config.audit.path : `${config.audit.path}.w${extras.workerSlot}`;
      audit = await FileAuditSink.open({ path, key: loaded.auditKey, onError: onWarning });
    } catch (error) {
      await stores.close();
      throw error;
    }
  }
  const ner =
    config.detector.advanced_url !== undefined
      ? new NerClient({
          baseUrl: config.detector.advanced_url,
          apiKey: config.detector.api_key?.reveal(),
          timeoutMs: config.detector.timeout_secs * 1000,
          maxInFlight: config.detector.ner_max_in_flight,
        })
      : undefined;
  // With an API-key file or directory the authenticator follows its reloads; otherwise app.ts builds one.
  const authenticator = config.auth.mode === 'api_key' && reload.apiKeys.reloadable ? new ReloadingApiKeyAuthenticator(reload.apiKeys) : undefined;
  // Several workers share the cores: each gets its share of worker threads.
  const cores = availableParallelism();
  const maxThreads = extras.workers !== undefined && extras.workers > 1 ? Math.max(1, Math.ceil(cores / extras.workers)) : undefined;
  return {
    config,
    digestSecret: loaded.digestSecret,
    stores,
    audit,
    ner,
    countNerDegraded: () => {
      metrics.nerDegraded.inc();
    },
    corpusKeys: deriveCorpusKeys(loaded.corpusSecret),
    policies,
    offload: createOffload({
      threshold: config.transform.offload_threshold_bytes,
      defaultRegion: config.detector.default_region,
      maxQueue: config.limits.max_offload_queue,
      heapMb: workerHeapMb(config),
      ...(maxThreads !== undefined ? { maxThreads } : {}),
    }),
    now,
    version: VERSION,
    startedAtMs: now(),
    ...(authenticator !== undefined ? { authenticator } : {}),
    metrics,
    tracer: extras.tracer,
    reload,
    cluster: extras.cluster,
  };
}

/** How many worker processes to run, and why when it is not what was asked for. */
export function resolveWorkers(config: VeilConfig): { workers: number; note?: string } {
  if (config.server.workers !== undefined) return { workers: config.server.workers };
  const cores = availableParallelism();
  if (cores <= 1) return { workers: 1 };
  // Memory stores are per process: several workers would each keep their own revocations,
  // replay counters and idempotency records. load.ts refuses an explicit count in that case;
  // the default quietly stays at one process and says why.
  const perProcess = [
    ['session.backend', config.session.backend],
    ['revocation_backend', config.revocation_backend],
    ['replay_backend', config.replay_backend],
    ['idempotency.backend', config.idempotency.backend],
  ].filter(([, backend]) => backend === 'memory');
  if (perProcess.length > 0) {
    return {
      workers: 1,
      note: `server.workers not set: running 1 process instead of ${cores} because ${perProcess.map(([name]) => name).join(', ')} ${perProcess.length === 1 ? 'is' : 'are'} memory (per process); use sqlite or redis to run one worker per core`,
    };
  }
  return { workers: cores };
}

/** PEM files of server.tls, read at startup (an unreadable file is a startup error). */
function readTls(config: VeilConfig): { cert: Buffer; key: Buffer } | undefined {
  const tls = config.server.tls;
  if (tls === undefined) return undefined;
  const read = (path: string, key: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (error) {
      const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'read error';
      throw new Error(`server.tls.${key} ${path}: cannot be read (${code})`, { cause: error });
    }
  };
  return { cert: read(tls.cert, 'cert'), key: read(tls.key, 'key') };
}

/**
 * Load the configuration. A cluster worker only reads the state-keys file its primary created
 * (config/state-keys.ts), so every worker holds the primary's secrets.
 */
function loadFrom(options: StartOptions): LoadedConfig {
  return loadConfig({
    ...(options.configFile !== undefined ? { file: options.configFile } : {}),
    env: options.env,
    ...(options.overrides !== undefined ? { overrides: options.overrides } : {}),
    stateKeys: cluster.isWorker ? 'read' : 'create',
  });
}

function loggerFor(config: VeilConfig, options: StartOptions): Logger {
  return createLogger({
    level: config.log.level,
    format: config.log.format,
    ...(options.logStream !== undefined ? { stream: options.logStream } : {}),
  });
}

/** The fields of the 'veil server listening' line (besides url). */
function listeningFields(config: VeilConfig, registry: { names(): string[]; defaultName: string }): Record<string, unknown> {
  const files = openFileLimits();
  return {
    auth_mode: config.auth.mode,
    policies: registry.names(),
    default_policy: registry.defaultName,
    tls: config.server.tls !== undefined,
    version: VERSION,
    pid: process.pid,
    // The limits this process runs with (cli/launcher.ts sets them from the configuration).
    memory_budget_mb: memoryBudgetMb(config),
    heap_limit_mb: Math.round(getHeapStatistics().heap_size_limit / (1024 * 1024)),
    ...(files !== undefined ? { open_files_limit: files.soft } : {}),
  };
}

/**
 * Build the app in this process and listen: the whole server in single-process mode, one of
 * several in a cluster worker (then the primary logs 'veil server listening', once).
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const loaded = loadFrom(options);
  const config = loaded.config;
  const logger = loggerFor(config, options);
  const worker = cluster.isWorker ? cluster.worker : undefined;
  // The primary already logged the configuration warnings once (and runs shared stores only).
  if (worker === undefined) {
    for (const warning of loaded.warnings) logger.warn(warning);
    const durability = durabilityWarning(config);
    if (durability !== undefined) logger.warn({ event: 'state_not_durable' }, durability);
  }
  const { workers, note } = resolveWorkers(config);
  if (note !== undefined && worker === undefined) logger.info({ event: 'workers_defaulted' }, note);
  const metrics = new VeilMetrics();
  const link =
    worker === undefined
      ? undefined
      : new WorkerLink({
          workerId: worker.id,
          metrics,
          send: (message) => {
            if (process.connected) process.send?.(message);
          },
        });
  if (link !== undefined) process.on('message', (message) => link.handle(message));
  // OpenTelemetry (about a second of module loading) loads only when traces are exported.
  const tracing =
    config.otel.traces_endpoint === undefined
      ? undefined
      : (await import('./tracing.js')).startTracing({ endpoint: config.otel.traces_endpoint, serviceName: config.otel.service_name, version: VERSION, logger });
  const slot = worker === undefined ? undefined : Number(options.env[WORKER_SLOT_ENV] ?? worker.id - 1);
  const https = readTls(config);
  const deps = await buildDeps(loaded, (message) => logger.warn(message), {
    metrics,
    tracer: tracing?.tracer,
    cluster: link,
    workerSlot: slot,
    workers: worker === undefined ? 1 : workers,
  });
  const app = await buildApp(deps, { logger, ...(https !== undefined ? { https } : {}) });
  if (link !== undefined) {
    link.setReporter(() => workerReport(deps, link.workerId));
    link.setReloadHandler((source) => deps.reload.reload(source, 'cluster'));
    deps.reload.setBroadcast((source) => link.broadcastReload(source));
  }
  const url = await app.listen({ host: config.server.host, port: config.server.port });
  deps.reload.start((source, error) => {
    logger.warn({ event: 'reload_watch_problem', source, error_type: error instanceof Error ? error.name : typeof error }, 'reload_watch_problem');
  });
  if (link !== undefined) {
    logger.info({ event: 'worker_listening', worker_id: link.workerId, slot, url }, 'worker listening');
    link.announceListening(url);
  } else {
    logger.info({ url, ...listeningFields(config, deps.policies.registry) }, 'veil server listening');
  }
  return {
    app,
    url,
    logger,
    deps,
    link,
    close: async () => {
      deps.reload.close();
      await app.close();
      await tracing?.tracer?.close();
    },
  };
}

/**
 * Stop accepting connections, let in-flight requests finish (at most
 * server.shutdown_timeout_seconds), then exit 0. SIGHUP reloads every reloadable source.
 */
export function installShutdown(server: RunningServer): void {
  let closing = false;
  const timeoutMs = server.deps.config.server.shutdown_timeout_seconds * 1000;
  const stop = (reason: string): void => {
    if (closing) return;
    closing = true;
    server.logger.info({ signal: reason }, 'shutting down');
    const timer = setTimeout(() => {
      server.logger.warn({ event: 'drain_timeout', timeout_ms: timeoutMs }, 'in-flight requests did not finish in time; closing their connections');
      server.app.server.closeAllConnections();
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    server
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        server.logger.error({ err: { type: error instanceof Error ? error.name : typeof error } }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  // Run by the launcher (cli/launcher.ts): stop when it is gone, since nobody forwards signals then.
  followLauncher(() => stop('launcher-gone'));
  process.on('SIGHUP', () => server.deps.reload.reload('all', 'signal'));
  if (server.link !== undefined) {
    server.link.setShutdownHandler(() => stop('primary'));
    // The primary is gone (killed): nobody restarts or stops this worker any more.
    process.once('disconnect', () => stop('primary-gone'));
  }
}

/**
 * `veil serve`: with more than one worker, this process becomes the primary (it validates
 * the configuration and the policy set once, then forks); otherwise, or in a forked worker,
 * it runs the server itself. Resolves to the exit code, or -1 to keep running.
 */
export async function runServe(options: StartOptions): Promise<number> {
  if (cluster.isPrimary) {
    const loaded = loadFrom(options);
    const config = loaded.config;
    // A heap too large for the memory budget, or too few file descriptors for max_connections:
    // run the server again in a process that gets them, and wait for it.
    const plan = options.relaunch !== undefined ? launchPlan(config, process.env, process.execArgv) : undefined;
    if (plan !== undefined && options.relaunch !== undefined) {
      replace(plan, options.relaunch.script, options.relaunch.args);
      return relaunch(plan, options.relaunch.script, options.relaunch.args);
    }
    const { workers, note } = resolveWorkers(config);
    if (workers > 1) {
      // Each worker would generate a secret of its own: blobs sealed by one would not open on
      // another, and a revocation digested by one would not match on another. The primary has
      // resolved every secret by now (configured, or the state-keys file beside the SQLite
      // database, created above); a per-process secret is left only when neither exists.
      if (loaded.generatedSecret) {
        throw new ConfigError([
          `session.secret: is required to run ${workers} workers without a SQLite state store: every worker must seal, open and digest with the same keys (VEIL_SESSION_SECRET; \`veil keygen\` prints one)`,
        ]);
      }
      const logger = loggerFor(config, options);
      for (const warning of loaded.warnings) logger.warn(warning);
      if (note !== undefined) logger.info({ event: 'workers_defaulted' }, note);
      // Fail once, here, rather than N times in the workers: policies, API keys, TLS files.
      const registry = loadPolicyRegistry({ directory: config.policy.directory, defaultName: config.policy.default, nowUnix: Math.floor(Date.now() / 1000) });
      createReloadManager({ loaded, holder: { registry }, now: Date.now });
      readTls(config);
      return runPrimary({
        workers,
        logger,
        shutdownTimeoutMs: config.server.shutdown_timeout_seconds * 1000,
        listeningFields: listeningFields(config, registry),
      });
    }
  }
  const server = await startServer(options);
  installShutdown(server);
  return -1;
}
