// OpenTelemetry traces (interface.md 6.5): off unless `otel.traces_endpoint`
// (VEIL_OTEL_TRACES_ENDPOINT) is set; then @opentelemetry/sdk-node exports over OTLP/HTTP (JSON)
// with `service.name` from `otel.service_name` (default `veil-server`).
//
// One SERVER span per request, built when the response is finished from the same observation
// the metrics use (metrics/observe.ts): route, status, tenant, policy, entity types and counts,
// guard flags, error code, and the client trace id only as its 16-hex fingerprint. Never a
// value, a body, a header value or a session id. An incoming W3C `traceparent` makes the span a
// child of the caller's trace.
//
// Failure at start never stops the server: an SDK that cannot start logs a warning and tracing
// stays off; an endpoint that does not answer the startup probe logs a warning (spans are then
// dropped until it answers); later export errors are logged as warnings, at most once a minute.
import * as api from '@opentelemetry/api';
import * as core from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import * as resources from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Logger } from 'pino';
import { fingerprint } from './audit/event.js';
import type { RequestObservation, RequestTracer } from './metrics/observe.js';

export interface TracingOptions {
  readonly endpoint: string;
  readonly serviceName: string;
  readonly version: string;
  readonly logger: Logger;
  /** Startup probe timeout. */
  readonly probeTimeoutMs?: number;
}

/** The endpoint as it may be logged: no userinfo, no query (either can carry a token). */
export function loggableEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(invalid url)';
  }
}


/** Span attributes of one request: names, counts and flags only. */
export function spanAttributes(observation: RequestObservation): api.Attributes {
  const { facts } = observation;
  const attributes: api.Attributes = {
    'http.request.method': observation.method,
    'http.response.status_code': observation.status,
    'veil.operation': observation.operation,
    'veil.request_id': observation.requestId,
  };
  if (observation.route !== undefined) attributes['http.route'] = observation.route;
  if (typeof observation.tenant === 'string') attributes['veil.tenant'] = observation.tenant;
  if (facts.policy !== undefined) attributes['veil.policy'] = facts.policy;
  if (facts.entity_types !== undefined) attributes['veil.entity_types'] = [...facts.entity_types].sort();
  if (facts.type_counts !== undefined) {
    for (const [type, count] of facts.type_counts) attributes[`veil.entity_count.${type}`] = count;
  }
  if (facts.entity_count !== undefined) attributes['veil.entity_count'] = facts.entity_count;
  if (facts.entities_blocked !== undefined) attributes['veil.entities_blocked'] = facts.entities_blocked;
  if (facts.entities_tokenized !== undefined) attributes['veil.entities_tokenized'] = facts.entities_tokenized;
  if (facts.item_count !== undefined) attributes['veil.item_count'] = facts.item_count;
  if (facts.detector_mode !== undefined) attributes['veil.detector_mode'] = facts.detector_mode;
  if (facts.prompt_security !== undefined) attributes['veil.prompt_security'] = facts.prompt_security;
  if (facts.output_guard !== undefined) attributes['veil.output_guard'] = facts.output_guard;
  if (facts.trace_id !== undefined) attributes['veil.trace_id'] = fingerprint(facts.trace_id);
  if (observation.errorCode !== undefined) attributes['veil.error_code'] = observation.errorCode;
  return attributes;
}

/** Warnings from the OTel SDK (export failures) into our log, at most one per minute. */
class ThrottledDiagLogger implements api.DiagLogger {
  readonly #logger: Logger;
  #lastMs = 0;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  #warn(message: string): void {
    const now = Date.now();
    if (now - this.#lastMs < 60_000) return;
    this.#lastMs = now;
    // The SDK's message names the failure (status, connection error), not span contents.
    this.#logger.warn({ event: 'otel_export_problem', detail: message.slice(0, 300) }, 'otel_export_problem');
  }

  error = (message: string): void => this.#warn(message);
  warn = (message: string): void => this.#warn(message);
  info = (): void => undefined;
  debug = (): void => undefined;
  verbose = (): void => undefined;
}

export class OtelRequestTracer implements RequestTracer {
  readonly #sdk: NodeSDK;
  readonly #tracer: api.Tracer;
  readonly #propagator = new core.W3CTraceContextPropagator();

  constructor(sdk: NodeSDK, tracer: api.Tracer) {
    this.#sdk = sdk;
    this.#tracer = tracer;
  }

  record(observation: RequestObservation): void {
    const parent =
      observation.traceparent === undefined
        ? api.ROOT_CONTEXT
        : this.#propagator.extract(api.ROOT_CONTEXT, { traceparent: observation.traceparent }, api.defaultTextMapGetter);
    const span = this.#tracer.startSpan(
      `${observation.method} ${observation.route ?? 'unmatched'}`,
      { kind: api.SpanKind.SERVER, startTime: Date.now() - observation.durationMs, attributes: spanAttributes(observation) },
      parent,
    );
    if (observation.status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR, message: observation.errorCode ?? `HTTP ${observation.status}` });
    span.end();
  }

  /**
   * Flush what is buffered and stop exporting. Best effort and bounded: an endpoint that is
   * down (the exporter retries) must not hold up a shutdown.
   */
  async close(timeoutMs = 3000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.#sdk.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      // Release the global registration so a later SDK (another app in the same process) can start.
      api.trace.disable();
      api.diag.disable();
    }
  }
}

/** POST an empty export to the endpoint: does it answer at all? */
async function probe(endpoint: string, timeoutMs: number): Promise<string | undefined> {
  try {
    // fetch refuses URLs with userinfo; send it as Basic credentials, as the exporter's http client does.
    const url = new URL(endpoint);
    const basic = url.username !== '' ? Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64') : undefined;
    url.username = '';
    url.password = '';
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(basic !== undefined ? { authorization: `Basic ${basic}` } : {}) },
      body: '{"resourceSpans":[]}',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return response.ok ? undefined : `HTTP ${response.status}`;
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    return typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.name : 'unreachable';
  }
}

/**
 * Start span export, or return undefined (with a warning) when the SDK cannot start. The
 * endpoint probe runs in the background; `probed` resolves when it has (tests wait on it).
 */
export function startTracing(options: TracingOptions): { tracer?: OtelRequestTracer; probed: Promise<void> } {
  const { logger } = options;
  const where = loggableEndpoint(options.endpoint);
  let tracer: OtelRequestTracer;
  try {
    api.diag.setLogger(new ThrottledDiagLogger(logger), api.DiagLogLevel.WARN);
    const sdk = new NodeSDK({
      serviceName: options.serviceName,
      resource: resources.resourceFromAttributes({ 'service.version': options.version }),
      autoDetectResources: false,
      traceExporter: new OTLPTraceExporter({ url: options.endpoint, timeoutMillis: 10_000 }),
      instrumentations: [],
      // Traces only: no metric or log exporters (the SDK would otherwise default to OTLP ones).
      metricReaders: [],
      logRecordProcessors: [],
    });
    sdk.start();
    tracer = new OtelRequestTracer(sdk, api.trace.getTracer('veil-server', options.version));
  } catch (error) {
    logger.warn({ event: 'otel_start_failed', endpoint: where, error_type: error instanceof Error ? error.name : typeof error }, 'tracing could not start; continuing without traces');
    return { probed: Promise.resolve() };
  }
  const probed = probe(options.endpoint, options.probeTimeoutMs ?? 3000).then((problem) => {
    if (problem === undefined) logger.info({ event: 'otel_traces_enabled', endpoint: where, service_name: options.serviceName }, 'tracing enabled');
    else {
      logger.warn(
        { event: 'otel_endpoint_unreachable', endpoint: where, problem },
        'the OTLP traces endpoint did not answer at startup; continuing, spans are dropped until it does',
      );
    }
  });
  return { tracer, probed };
}
