// HTTP client for the NER sidecar `veil-ner` (interface.md 4.27; ner/ and docs/ner.md).
//
// Every call has a deadline (AbortController; it also covers reading the body), sends the shared
// secret in `X-Detector-API-Key`, and validates the answer strictly: spans are integers inside
// the text's length in Unicode code points, types are the three NER types, confidences lie in
// [0, 1]. Any failure becomes a NerError (VEIL_DETECTION_FAILED): 502 for an error or a
// malformed answer, 504 for a timeout, with a `reason` (timeout, unreachable, rejected, error
// status, invalid response) that warnings and logs name. Error details name the failure, never
// the text or an entity value. The client remembers the outcome of its latest detect call, so
// /v1/capabilities and /v1/health can say whether NER is answering right now (`availability`),
// and keeps at most `maxInFlight` detect calls at the sidecar, queueing the rest here.
// `fetch` is injectable so tests drive the client against local stub servers.
import { VeilError } from '@veil/common';

/** The Veil entity types the sidecar reports. */
export const NER_ENTITY_TYPES = ['person', 'organization', 'location'] as const;
export type NerEntityType = (typeof NER_ENTITY_TYPES)[number];

/** One entity; `start`/`end` are Unicode code point offsets (end exclusive). */
export interface NerEntity {
  type: string;
  start: number;
  end: number;
  confidence: number;
  label: string;
}

export interface NerClientOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
  /** Largest answer body accepted, in bytes (default 16 MiB). */
  maxResponseBytes?: number;
  /** Clock for the availability record (tests inject one). */
  now?: () => number;
  /** Detect calls of this process at the sidecar at once; more wait here (default 4). */
  maxInFlight?: number;
}

export interface NerDetectOptions {
  language?: string;
  labels?: readonly string[];
  /** Abandons the call (it then fails like a network error): a sibling call of the request failed. */
  signal?: AbortSignal;
}

export interface NerDetectResult {
  entities: NerEntity[];
  degraded: boolean;
  warnings: string[];
}

export interface NerBatchItem {
  text: string;
  language?: string;
  labels?: readonly string[];
}

export interface NerBatchResult {
  entities: NerEntity[];
  degraded: boolean;
}

/**
 * Why a sidecar call failed, in words fit for a warning and a log field (never a value):
 * `timeout` (no answer within detector.timeout_secs), `unreachable` (connection refused, reset,
 * DNS), `rejected` (a 4xx: wrong API key, input refused), `error_status` (a 5xx: the sidecar
 * failed, is loading or busy), `invalid_response` (not JSON, wrong shape, spans out of range).
 */
export type NerFailureReason = 'timeout' | 'unreachable' | 'rejected' | 'error_status' | 'invalid_response';

/**
 * A failed sidecar call: VEIL_DETECTION_FAILED with its reason (502, or 504 for a timeout).
 * `detail` is for logs; `summary` is a sentence for the response warning. Both are built from
 * fixed phrases, status numbers and error codes only, never from the text or the answer.
 */
export class NerError extends VeilError {
  readonly reason: NerFailureReason;
  readonly summary: string;

  constructor(reason: NerFailureReason, detail: string, summary: string) {
    super('VEIL_DETECTION_FAILED', 'detection failed', detail, reason === 'timeout' ? 504 : 502);
    this.reason = reason;
    this.summary = summary;
  }
}

/** Whether the sidecar answered its latest detect call (or probe), and when that was. */
export type NerAvailability =
  | { readonly answering: true; readonly atMs: number }
  | { readonly answering: false; readonly atMs: number; readonly reason: NerFailureReason; readonly detail: string; readonly summary: string };

export const NER_API_KEY_HEADER = 'X-Detector-API-Key';
/** How long an observed outcome stands for the sidecar's availability before a fresh probe. */
const AVAILABILITY_TTL_MS = 5000;
const DEFAULT_READY_TIMEOUT_MS = 2000;
const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_IN_FLIGHT = 4;
const MAX_LABEL_CHARS = 64;
const MAX_WARNINGS = 32;
const MAX_WARNING_CHARS = 512;
const TYPES: ReadonlySet<string> = new Set(NER_ENTITY_TYPES);

/** Number of Unicode code points in a JavaScript (UTF-16) string; lone surrogates count as one. */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let index = 0; index < text.length - 1; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length -= 1;
        index += 1;
      }
    }
  }
  return length;
}

function malformed(problem: string): NerError {
  return new NerError('invalid_response', `ner malformed response: ${problem}`, `the NER sidecar sent an invalid response (${problem})`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-2xx answer: its detail (logs) and summary (warning), from the status alone. */
function statusFailure(status: number): NerError {
  const reason = status >= 500 ? 'error_status' : 'rejected';
  switch (status) {
    case 400:
      return new NerError(reason, 'ner rejected the request (400)', 'the NER sidecar refused the request as invalid (HTTP 400)');
    case 401:
      return new NerError(reason, 'ner rejected the API key (401)', 'the NER sidecar rejected the API key (HTTP 401)');
    case 413:
      return new NerError(reason, 'ner input too large (413)', 'the NER sidecar refused the input as too large (HTTP 413)');
    case 503:
      return new NerError(reason, 'ner unavailable (503)', 'the NER sidecar is unavailable (HTTP 503: model not loaded, busy, or no API key configured)');
    default:
      return new NerError(reason, `ner answered status ${status}`, `the NER sidecar answered with an error (HTTP ${status})`);
  }
}

function parseEntities(value: unknown, textLength: number, path: string): NerEntity[] {
  if (!Array.isArray(value)) throw malformed(`${path} is not an array`);
  return value.map((raw: unknown, index): NerEntity => {
    const at = `${path}[${index}]`;
    if (!isRecord(raw)) throw malformed(`${at} is not an object`);
    const { type, start, end, confidence, label } = raw;
    if (typeof type !== 'string' || !TYPES.has(type)) throw malformed(`${at}.type is not a known type`);
    if (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0) {
      throw malformed(`${at}.start is not a non-negative integer`);
    }
    if (typeof end !== 'number' || !Number.isSafeInteger(end) || end <= start || end > textLength) {
      throw malformed(`${at}.end is out of range`);
    }
    if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
      throw malformed(`${at}.confidence is not in [0, 1]`);
    }
    if (typeof label !== 'string' || label.length === 0 || label.length > MAX_LABEL_CHARS) {
      throw malformed(`${at}.label is not a short string`);
    }
    return { type, start, end, confidence, label };
  });
}

function parseWarnings(value: unknown): string[] {
  if (value === undefined) return [];
  if (
    !Array.isArray(value) ||
    value.length > MAX_WARNINGS ||
    !value.every((warning): warning is string => typeof warning === 'string' && warning.length <= MAX_WARNING_CHARS)
  ) {
    throw malformed('warnings is not a short array of strings');
  }
  return value;
}

function parseDegraded(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') throw malformed(`${path} is not a boolean`);
  return value;
}

function requestItem(text: string, options: NerDetectOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { text };
  if (options.language !== undefined) body.language = options.language;
  if (options.labels !== undefined) body.labels = [...options.labels];
  return body;
}

/** Why a call failed before any answer: our deadline, or the network. */
class Timeout extends Error {}

export class NerClient {
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly maxResponseBytes: number;
  private readonly now: () => number;
  private observed: NerAvailability | undefined;
  private probing: Promise<void> | undefined;
  private readonly maxInFlight: number;
  private active = 0;
  private waiting: (() => void)[] = [];

  constructor(options: NerClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError('NerClient: baseUrl is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('NerClient: baseUrl must be http(s)');
    if (!(options.timeoutMs > 0)) throw new TypeError('NerClient: timeoutMs must be positive');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.now = options.now ?? Date.now;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    if (!(this.maxInFlight >= 1)) throw new TypeError('NerClient: maxInFlight must be at least 1');
  }

  /** The per-call deadline in milliseconds (detector.timeout_secs). */
  get timeout(): number {
    return this.timeoutMs;
  }

  /** Entities in one text. */
  async detect(text: string, options: NerDetectOptions = {}): Promise<NerDetectResult> {
    return this.observe(options.signal, async () => {
      const answer = await this.slot(options.signal, () => this.call('POST', '/v1/detect', requestItem(text, options), this.timeoutMs, options.signal));
      if (!isRecord(answer)) throw malformed('body is not an object');
      return {
        entities: parseEntities(answer.entities, codePointLength(text), 'entities'),
        degraded: parseDegraded(answer.degraded, 'degraded'),
        warnings: parseWarnings(answer.warnings),
      };
    });
  }

  /** Entities in several texts, in order, in one request (the sidecar batches them through the model). */
  async detectBatch(items: readonly NerBatchItem[], options: { signal?: AbortSignal } = {}): Promise<NerBatchResult[]> {
    return this.observe(options.signal, async () => {
      const body = { items: items.map((item) => requestItem(item.text, item)) };
      const answer = await this.slot(options.signal, () => this.call('POST', '/v1/detect/batch', body, this.timeoutMs, options.signal));
      if (!isRecord(answer) || !Array.isArray(answer.results)) throw malformed('results is not an array');
      const results: unknown[] = answer.results;
      if (results.length !== items.length) throw malformed('results length differs from items length');
      return results.map((result, index): NerBatchResult => {
        const item = items[index]!;
        if (!isRecord(result)) throw malformed(`results[${index}] is not an object`);
        return {
          entities: parseEntities(result.entities, codePointLength(item.text), `results[${index}].entities`),
          degraded: parseDegraded(result.degraded, `results[${index}].degraded`),
        };
      });
    });
  }

  /**
   * Whether detect calls are being answered: the outcome of the latest detect call when it is
   * recent, else a fresh probe (an empty detect call, so the API key and the model are checked,
   * not just the process). Never throws.
   */
  async availability(probeTimeoutMs: number = DEFAULT_READY_TIMEOUT_MS): Promise<NerAvailability> {
    const observed = this.observed;
    if (observed !== undefined && this.now() - observed.atMs < AVAILABILITY_TTL_MS) return observed;
    // Concurrent askers share one probe.
    this.probing ??= this.observe(undefined, () => this.call('POST', '/v1/detect', { text: '' }, Math.min(probeTimeoutMs, this.timeoutMs)))
      .then(
        () => undefined,
        () => undefined, // recorded by observe
      )
      .finally(() => {
        this.probing = undefined;
      });
    await this.probing;
    return (
      this.observed ?? { answering: false, atMs: this.now(), reason: 'invalid_response', detail: 'ner probe failed', summary: 'the NER sidecar could not be probed' }
    );
  }

  /** True when GET /readyz answers 200 `{status: "ready"}` within the timeout; never throws. */
  async ready(timeoutMs: number = DEFAULT_READY_TIMEOUT_MS): Promise<boolean> {
    try {
      const answer = await this.call('GET', '/readyz', undefined, timeoutMs);
      return isRecord(answer) && answer.status === 'ready';
    } catch {
      return false;
    }
  }

  /** The sidecar's /health body (always 200 when the sidecar runs). */
  async health(): Promise<unknown> {
    return this.call('GET', '/health', undefined, this.timeoutMs);
  }

  /**
   * Run `call` once fewer than maxInFlight detect calls of this process are at the sidecar. The
   * deadline starts when the call is sent: waiting here is the server's own queue, and it keeps
   * the sidecar's queue short so concurrent requests do not time each other out.
   */
  private async slot<T>(signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
    if (this.active >= this.maxInFlight) {
      await new Promise<void>((resolve, reject) => {
        const waiter = (): void => {
          signal?.removeEventListener('abort', abandoned);
          resolve();
        };
        const abandoned = (): void => {
          this.waiting = this.waiting.filter((other) => other !== waiter);
          reject(new NerError('unreachable', 'ner call abandoned', 'the NER call was abandoned'));
        };
        if (signal?.aborted === true) {
          abandoned();
          return;
        }
        signal?.addEventListener('abort', abandoned, { once: true });
        this.waiting.push(waiter);
      });
    }
    this.active += 1;
    try {
      return await call();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  /** Run a detect call and remember its outcome (an abandoned call says nothing about the sidecar). */
  private async observe<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      this.observed = { answering: true, atMs: this.now() };
      return result;
    } catch (error) {
      if (error instanceof NerError && signal?.aborted !== true) {
        this.observed = { answering: false, atMs: this.now(), reason: error.reason, detail: error.detail ?? error.reason, summary: error.summary };
      }
      throw error;
    }
  }

  private async call(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      controller.abort(new Timeout());
    }, timeoutMs);
    const abandon = (): void => {
      controller.abort(signal?.reason);
    };
    if (signal?.aborted === true) abandon();
    else signal?.addEventListener('abort', abandon, { once: true });
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey !== undefined) headers[NER_API_KEY_HEADER] = this.apiKey;
    try {
      const init: RequestInit = { method, headers, signal: controller.signal, redirect: 'error' };
      if (body !== undefined) init.body = JSON.stringify(body);
      const response = await this.fetchImpl(`${this.baseUrl}${path}`, init);
      const raw = await this.readBody(response);
      if (!response.ok) throw statusFailure(response.status);
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        throw malformed('invalid JSON');
      }
    } catch (error: unknown) {
      if (error instanceof NerError) throw error;
      if (controller.signal.aborted && controller.signal.reason instanceof Timeout) {
        throw new NerError('timeout', 'ner timeout', `the NER sidecar did not answer within ${timeoutMs / 1000} s (timeout)`);
      }
      const code = networkCode(error);
      throw new NerError('unreachable', `ner unreachable (${code})`, `the NER sidecar could not be reached (${code})`);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abandon);
    }
  }

  private async readBody(response: Response): Promise<string> {
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > this.maxResponseBytes) {
      await response.body?.cancel();
      throw malformed('body too large');
    }
    if (response.body === null) return '';
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > this.maxResponseBytes) {
        await reader.cancel();
        throw malformed('body too large');
      }
      chunks.push(value);
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      throw malformed('body is not UTF-8');
    }
  }
}

/** A short, value-free name for a network failure (e.g. ECONNREFUSED). */
function networkCode(error: unknown): string {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  if (isRecord(cause) && typeof cause.code === 'string' && /^[A-Z0-9_]{1,40}$/.test(cause.code)) return cause.code;
  if (error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name)) return error.name;
  return 'error';
}
