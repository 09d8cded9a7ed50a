// buildApp(deps): the Fastify application with its plugins registered in a fixed, explicit
// order. No I/O happens here beyond what deps carry, so tests build it and use inject(). Part
// of the composition root (with compose.ts, deps.ts and main.ts): the only modules that read
// AppDeps. Each plugin and route receives what its signature names (a configuration slice, a
// store, the clock, the use cases); AppDeps satisfies those narrow types, and nothing below
// imports it (server/src/architecture.test.ts, eslint.layers.js).
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { lazyChildLogger } from './logging.js';
import { LogAuditSink } from './audit/sink.js';
import { registerAudit } from './plugins/audit.js';
import { createAuthenticator, registerAuth } from './auth/index.js';
import { buildUseCases, only } from './compose.js';
import type { AppDeps } from './deps.js';
import { registerObservability } from './metrics/observe.js';
import { metricsRoutes } from './routes/metrics.js';
import { openAiRoutes } from './routes/openai.js';
import { registerErrorHandling } from './plugins/errors.js';
import { collectRoutes } from './openapi/document.js';
import { openApiRoutes } from './routes/openapi.js';
import { reportReload } from './reload/report.js';
import { adminPolicyRoutes } from './routes/admin-policy.js';
import { diagnosticsRoutes } from './routes/diagnostics.js';
import { registerIdempotency } from './plugins/idempotency.js';
import { registerJsonParser } from './plugins/json.js';
import { registerAdmission } from './plugins/admission.js';
import { ConnectionGuard } from './plugins/connections.js';
import { Admission, memoryBudgetMb } from './services/overload.js';
import { lazyCompilers } from './plugins/lazy-compilers.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { registerAuthThrottle } from './plugins/auth-throttle.js';
import { batchRoutes } from './routes/batch.js';
import { detectRoutes } from './routes/detect.js';
import { fileRoutes } from './routes/files.js';
import { policyRoutes } from './routes/policy.js';
import { rehydrateRoutes } from './routes/rehydrate.js';
import { revokeRoutes } from './routes/revoke.js';
import { sessionRoutes } from './routes/sessions.js';
import { streamRoutes } from './routes/stream.js';
import { ragRoutes } from './routes/rag.js';
import { probeRoutes, systemRoutes } from './routes/system.js';
import { transformRoutes } from './routes/transform.js';
import { validationRoutes } from './routes/validation.js';

export interface BuildOptions {
  /** A pino logger; tests pass one writing to memory to prove no value is logged. */
  readonly logger?: Logger;
  /** In-process TLS (server.tls): certificate chain and private key, PEM. */
  readonly https?: { readonly cert: Buffer; readonly key: Buffer };
}

/** server.trust_proxy as Fastify takes it: a hop count becomes "trust the nearest N hops". */
function trustProxyOption(setting: boolean | number | readonly string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return typeof setting === 'boolean' ? setting : [...setting];
}

export async function buildApp(deps: AppDeps, options: BuildOptions = {}): Promise<FastifyInstance> {
  const loggerInstance: FastifyBaseLogger = options.logger ?? pino({ enabled: false });
  const server = deps.config.server;
  // Node's own checks: headers within headers_timeout_seconds, looked at every second (its default
  // is every 30 s). The body timeout is the connection guard's (streams exempt), so Node's
  // requestTimeout stays off.
  const nodeServer = { connectionsCheckingInterval: 1000, headersTimeout: server.headers_timeout_seconds * 1000, requestTimeout: 0 };
  // Route schemas compile on first use, and all of them right after the server listens.
  const compilers = lazyCompilers();
  const app: FastifyInstance = Fastify({
    ...(options.https !== undefined ? { https: { cert: options.https.cert, key: options.https.key, ...nodeServer } } : { http: nodeServer }),
    // A connection with no bytes moving either way for this long is closed: a client that stopped
    // reading its answer, or sends nothing at all.
    connectionTimeout: server.idle_timeout_seconds * 1000,
    keepAliveTimeout: server.keep_alive_timeout_seconds * 1000,
    requestTimeout: 0,
    loggerInstance,
    // No per-request access lines: routes log their own value-free completion events.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    // The request's child logger made when it first logs (logging.ts lazyChildLogger).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: deps.config.server.body_limit_bytes,
    // request.ip: the socket peer, or the client X-Forwarded-For names when its proxy is trusted.
    trustProxy: trustProxyOption(deps.config.server.trust_proxy),
    return503OnClosing: true,
    schemaController: { compilersFactory: compilers.compilersFactory },
    ajv: {
      // Reject unknown fields (never strip them) and never coerce types.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false },
    },
  });
  // The use cases the routes call, wired once from deps (compose.ts); the executor is also the
  // JSON parser's and admission's body offload, so the inline-or-worker threshold lives there.
  const useCases = buildUseCases(deps, { warn: (message) => app.log.warn(message) });
  const offload = useCases.executor;
  registerErrorHandling(app);
  app.addHook('onListen', (done) => {
    void compilers.warm();
    done();
  });
  // Metrics and spans: one onResponse observation per request (metrics/observe.ts).
  registerObservability(app, only(deps, 'metrics', 'tracer'));
  // JSON only: without this, text/plain bodies would reach the schema as strings (400, not 415).
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app, { config: deps.config, offload });
  // Audit before auth (its onRequest must run even for requests auth refuses) and before
  // idempotency (a response replaced by 503 in strict mode must release its key, not be stored).
  const audit = deps.audit ?? new LogAuditSink(app.log);
  registerAudit(app, only(deps, 'config'), audit);
  // Failed authentication per client address: refused before the credential is checked.
  registerAuthThrottle(app, only(deps, 'config', 'now'));
  // Before any route: every route must declare its scope (startup fails otherwise); CORS, then
  // the root onRequest hook that authenticates and checks the scope before the body is read.
  // Hooks that need the principal (rate limit) are added right after this line.
  await registerAuth(app, deps.config, deps.authenticator ?? createAuthenticator(deps.config.auth, { now: deps.now }));
  // Per-tenant token buckets: a root onRequest hook that reads the principal auth stored.
  registerRateLimit(app, only(deps, 'config', 'now', 'reload'));
  // Load shedding: connections (slow, excess) on the HTTP server itself, then large requests and
  // streams admitted before their body is read.
  const guard = new ConnectionGuard(app.server, {
    maxConnections: server.max_connections,
    maxPerSource: server.max_connections_per_source,
    requestTimeoutMs: server.request_timeout_seconds * 1000,
    log: app.log,
  });
  const limits = deps.config.limits;
  registerAdmission(app, { config: deps.config, offload }, new Admission({ maxLarge: limits.max_large_requests, maxStreams: limits.max_streams, budgetMb: memoryBudgetMb(deps.config) }), guard);
  registerIdempotency(app, only(deps, 'config', 'stores', 'now'));
  // Every route registered below goes into the OpenAPI document (GET /openapi.json).
  const routes = collectRoutes(app);

  // Each route group gets the fields its signature names (compose.ts only), and the use cases.
  const system = only(deps, 'config', 'policies', 'stores', 'ner', 'audit', 'reload', 'version', 'now', 'startedAtMs');
  const callers = only(deps, 'config', 'policies');
  await app.register(probeRoutes(system));
  await app.register(systemRoutes(system));
  await app.register(transformRoutes(callers, useCases));
  await app.register(fileRoutes(callers, useCases));
  await app.register(rehydrateRoutes(callers, useCases));
  await app.register(detectRoutes(callers, useCases));
  await app.register(batchRoutes(callers, useCases));
  await app.register(streamRoutes(callers, useCases));
  await app.register(policyRoutes(only(deps, 'config', 'policies', 'reload')));
  await app.register(validationRoutes());
  await app.register(revokeRoutes(useCases));
  await app.register(sessionRoutes(useCases));
  await app.register(ragRoutes(callers, useCases));
  await app.register(openAiRoutes(callers, useCases));
  await app.register(diagnosticsRoutes(only(deps, 'config', 'policies', 'reload', 'version', 'now', 'startedAtMs', 'audit', 'tracer', 'cluster')));
  await app.register(metricsRoutes(only(deps, 'metrics', 'cluster')));
  await app.register(adminPolicyRoutes(only(deps, 'policies', 'reload')));
  await app.register(openApiRoutes(deps.version, routes));
  // Every reload attempt (admin API, watcher, SIGHUP, another worker): log, metric, audit.
  const stopReporting = deps.reload.onReload((event) => reportReload(app.log, audit, deps.metrics, event, deps.now()));
  app.addHook('onClose', async () => {
    guard.close();
    stopReporting();
    deps.reload.close();
    await useCases.close();
    await deps.offload.close();
    await deps.stores.close();
    await audit.close();
  });
  await app.ready();
  return app;
}
