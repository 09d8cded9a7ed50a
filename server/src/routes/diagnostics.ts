// GET /v1/diagnostics (scope admin): what this server is running with (interface.md 4.23,
// decisions.md section 5) plus what the Kubernetes operator checks during a rotation: the
// session key-ring generation loaded per tenant (the platform ring under tenant null, then every
// ring of session.keyring_directory, with the file's own generation and, for a ring kept after
// its newer file was refused, the problems), ring files with no usable version, the API-key list
// generation, the tenant settings loaded, the policy-set hash, and the last reload attempts.
// Names, kids, counts, hashes and times only: never a key, a secret or a policy's content.
//
// With several worker processes the response also lists every worker's own report (gathered
// through the primary), so an operator can require that all workers loaded a rotation step.
//
// Scope: the whole report is for untenanted (platform) admins. A tenant-bound admin gets its
// tenant's view only (tenantDiagnostics): the service settings the spec lists, the policies it
// may use, and its own key ring and tenant settings, per worker too; nothing about other
// tenants, the API-key list or reload events (whose messages can name other tenants' files).
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { WorkerReport } from '../cluster/ipc.js';
import type { AuditSink } from '../audit/sink.js';
import type { ClusterLink } from '../cluster/worker.js';
import type { ReloadManager } from '../reload/manager.js';
import { policiesFor, type PolicyHolder } from '../services/policies.js';
import { policyHash, policySetHash } from '../reload/policies.js';
import { principalOf, type ConfigSlice } from './common.js';

/** What the reports read: the loaded sets (policies, rings, keys, tenant settings), the settings they show, the process. */
export interface DiagnosticsDeps
  extends ConfigSlice<'detector' | 'session' | 'revocation_backend' | 'replay_backend' | 'idempotency' | 'audit' | 'auth' | 'rate_limit' | 'prompt_security' | 'output_protection' | 'policy' | 'server'> {
  readonly policies: PolicyHolder;
  readonly reload: Pick<ReloadManager, 'keyRing' | 'tenantKeyRings' | 'apiKeys' | 'tenants' | 'lastOutcome' | 'policies'>;
  readonly version: string;
  readonly now: () => number;
  readonly startedAtMs: number;
  readonly audit?: Pick<AuditSink, 'backend'> | undefined;
  /** Set when spans are exported (tracing.ts); only its presence is reported. */
  readonly tracer?: unknown;
  readonly cluster?: ClusterLink | undefined;
}

/** The fields every worker reports (and a single process reports once). */
export function loadedState(deps: Pick<DiagnosticsDeps, 'policies' | 'reload'>): Record<string, unknown> {
  const registry = deps.policies.registry;
  return {
    policy_set_hash: policySetHash(registry),
    key_rings: [deps.reload.keyRing.status(), ...(deps.reload.tenantKeyRings?.status() ?? [])],
    ...(deps.reload.tenantKeyRings !== undefined ? { key_ring_problems: deps.reload.tenantKeyRings.problems() } : {}),
    api_keys: deps.reload.apiKeys.status(),
    ...(deps.reload.tenants !== undefined ? { tenant_settings: deps.reload.tenants.status() } : {}),
  };
}

/** This worker's report for the primary's collection. */
export function workerReport(deps: Pick<DiagnosticsDeps, 'policies' | 'reload'>, workerId: number): WorkerReport {
  return { worker_id: workerId, pid: process.pid, ...loadedState(deps) };
}

export function diagnosticsOf(deps: DiagnosticsDeps): Record<string, unknown> {
  const config = deps.config;
  const registry = deps.policies.registry;
  const reload = deps.reload;
  const outcome = (source: 'policies' | 'keyring' | 'api_keys' | 'tenants') => reload.lastOutcome(source) ?? null;
  return {
    version: deps.version,
    uptime_seconds: Math.floor((deps.now() - deps.startedAtMs) / 1000),
    detector_mode: config.detector.mode,
    session_backend: config.session.backend,
    revocation_backend: config.revocation_backend,
    replay_backend: config.replay_backend,
    idempotency_backend: config.idempotency.backend,
    audit_backend: deps.audit?.backend ?? config.audit.backend,
    auth_mode: config.auth.mode,
    policies: registry
      .snapshot()
      .policies.map((policy) => ({ name: policy.name, version: policy.version, hash: policyHash(policy) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    default_policy: registry.defaultName,
    default_policy_source: registry.defaultSource,
    policies_loaded_at_unix: registry.loadedAtUnix,
    rate_limit_enabled: config.rate_limit.enabled,
    prompt_security_enabled: config.prompt_security.enabled,
    output_guard_enabled: config.output_protection.enabled,
    policy_watch_enabled: config.policy.watch,
    last_policy_reload_unix: reload.policies.lastReloadUnix ?? null,
    ...loadedState(deps),
    reloads: { policies: outcome('policies'), keyring: outcome('keyring'), api_keys: outcome('api_keys'), tenants: outcome('tenants') },
    tracing_enabled: deps.tracer !== undefined,
    tls_enabled: config.server.tls !== undefined,
    worker: deps.cluster === undefined ? null : { worker_id: deps.cluster.workerId, pid: process.pid },
  };
}

/** Entries of a `{tenant, ...}[]` report field that belong to `tenant`. */
function ownEntries(value: unknown, tenant: string): unknown[] {
  return Array.isArray(value) ? value.filter((entry: unknown) => typeof entry === 'object' && entry !== null && (entry as { tenant?: unknown }).tenant === tenant) : [];
}

/** What one worker's report shows a tenant admin: its own ring and settings. */
function tenantLoadedState(report: Record<string, unknown>, tenant: string): Record<string, unknown> {
  const settings = report.tenant_settings as { tenants?: unknown } | undefined;
  return {
    key_rings: ownEntries(report.key_rings, tenant),
    ...(settings !== undefined ? { tenant_settings: { tenants: ownEntries(settings.tenants, tenant) } } : {}),
  };
}

/** The report a tenant-bound admin gets (see the header). */
export function tenantDiagnostics(deps: DiagnosticsDeps, tenant: string): Record<string, unknown> {
  const config = deps.config;
  const registry = policiesFor(deps, tenant);
  const visible = registry.allowed;
  return {
    scope: 'tenant',
    tenant,
    version: deps.version,
    detector_mode: config.detector.mode,
    session_backend: config.session.backend,
    revocation_backend: config.revocation_backend,
    replay_backend: config.replay_backend,
    idempotency_backend: config.idempotency.backend,
    auth_mode: config.auth.mode,
    policies: registry
      .snapshot()
      .policies.filter((policy) => visible === undefined || visible.has(policy.name))
      .map((policy) => ({ name: policy.name, version: policy.version, hash: policyHash(policy) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    // The tenant's effective default: the server default only when the tenant may use it.
    default_policy: visible === undefined || visible.has(registry.defaultName) ? registry.defaultName : null,
    rate_limit_enabled: config.rate_limit.enabled,
    prompt_security_enabled: config.prompt_security.enabled,
    output_guard_enabled: config.output_protection.enabled,
    policy_watch_enabled: config.policy.watch,
    last_policy_reload_unix: deps.reload.policies.lastReloadUnix ?? null,
    ...tenantLoadedState(loadedState(deps), tenant),
  };
}

export function diagnosticsRoutes(deps: DiagnosticsDeps) {
  return function register(app: FastifyInstance): void {
    app.get('/v1/diagnostics', { config: { scope: 'admin' } }, async (request) => {
      const principal: Principal = principalOf(request);
      const tenant = principal.tenant;
      const own = tenant === null ? { scope: 'platform', ...diagnosticsOf(deps) } : tenantDiagnostics(deps, tenant);
      if (deps.cluster === undefined) return own;
      let workers: Record<string, unknown>[] | null = null;
      try {
        const reports: WorkerReport[] = await deps.cluster.reports();
        workers = tenant === null ? reports : reports.map((report) => ({ worker_id: report.worker_id, ...tenantLoadedState(report, tenant) }));
      } catch (error) {
        // This worker's own view still answers; `workers: null` says the gather failed.
        request.log.warn({ event: 'worker_reports_failed', error_type: error instanceof Error ? error.message : 'failed' }, 'worker_reports_failed');
      }
      return { ...own, workers };
    });
  };
}
