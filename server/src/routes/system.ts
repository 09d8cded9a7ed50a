// Probes, health and capabilities. /livez and /readyz are public; health and capabilities need
// any valid credential once auth is enabled. /readyz is not ready while the policy set is empty,
// a required NER sidecar does not answer, the strict audit sink cannot record, or a shared store
// (Redis) cannot be reached: a replica whose every request would fail closed with 503 must
// leave the load balancer's rotation.
import { BUILTIN_CHANNELS, RESTORE_MODES } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import type { AuditSink } from '../audit/sink.js';
import type { NerClient, NerAvailability } from '../clients/ner.js';
import type { ReloadManager } from '../reload/manager.js';
import type { PolicyHolder } from '../services/policies.js';
import type { AppStores } from '../stores/types.js';
import type { ConfigSlice } from './common.js';
import { ENTITY_CATALOG } from '../domain/catalog.js';
import { BUILTIN_REGEX_TYPES } from '../domain/detect/index.js';
import { ABSTRACT_LANGUAGES } from '../domain/restore/index.js';
import { FILE_FORMATS } from '../files/formats.js';
import { ocrSetup } from '../services/ocr.js';

const DETECTOR_MODE_MESSAGES = { builtin: 'builtin_only', both: 'builtin_and_ner', advanced: 'ner_required' } as const;

/** Bound on one store ping of /readyz: well under a kubelet probe's timeout. */
export const STORE_PING_TIMEOUT_MS = 500;
/** How long a store ping's answer is reused: probes every second cost one ping per second at most. */
export const STORE_PING_CACHE_MS = 1000;

/** What the probes, health and capabilities read: the loaded state, the stores, the sidecar, the audit sink. */
export interface SystemDeps extends ConfigSlice<'detector' | 'audit' | 'session' | 'limits' | 'file_upload' | 'ocr'> {
  readonly policies: PolicyHolder;
  readonly stores: Pick<AppStores, 'ping'>;
  readonly ner?: NerClient | undefined;
  readonly audit?: Pick<AuditSink, 'backend' | 'healthy' | 'probe'> | undefined;
  readonly reload: Pick<ReloadManager, 'lastOutcome'>;
  readonly version: string;
  readonly now: () => number;
  readonly startedAtMs: number;
}

/** The stores' reachability for /readyz: a bounded ping, cached briefly, shared by concurrent probes. */
function storeProbe(deps: SystemDeps): () => Promise<boolean> {
  let cached: { readonly atMs: number; readonly ok: boolean } | undefined;
  let inFlight: Promise<boolean> | undefined;
  return () => {
    const stores = deps.stores;
    if (stores.ping === undefined) return Promise.resolve(true);
    if (cached !== undefined && deps.now() - cached.atMs < STORE_PING_CACHE_MS) return Promise.resolve(cached.ok);
    inFlight ??= stores
      .ping(STORE_PING_TIMEOUT_MS)
      .catch(() => false)
      .then((ok) => {
        cached = { atMs: deps.now(), ok };
        inFlight = undefined;
        return ok;
      });
    return inFlight;
  };
}

/**
 * Whether the NER detector is in use and answering: undefined in `builtin` mode or without a
 * sidecar; else the client's latest observation (a recent detect call, or a fresh probe).
 */
async function nerAvailability(deps: SystemDeps): Promise<NerAvailability | undefined> {
  if (deps.ner === undefined || deps.config.detector.mode === 'builtin') return undefined;
  return deps.ner.availability();
}

/**
 * The detector component of /v1/health. Its message names the configured mode and, when the
 * sidecar is not answering, why. Status: an optional sidecar being down (`both`) degrades
 * coverage, not the service, so it stays healthy; with NER required (`advanced`) every
 * transform fails, which is unhealthy.
 */
async function detectorHealth(deps: SystemDeps): Promise<{ status: 'healthy' | 'unhealthy'; message: string }> {
  const mode = deps.config.detector.mode;
  const message = DETECTOR_MODE_MESSAGES[mode];
  if (mode === 'builtin') return { status: 'healthy', message };
  const ner = await nerAvailability(deps);
  if (ner?.answering === true) return { status: 'healthy', message };
  const why = ner === undefined ? 'no NER sidecar is configured' : `the NER sidecar is not answering: ${ner.summary}`;
  return { status: mode === 'advanced' ? 'unhealthy' : 'healthy', message: `${message}; ${why}` };
}

export function probeRoutes(deps: SystemDeps) {
  const storesReachable = storeProbe(deps);
  return function register(app: FastifyInstance): void {
    // Probes are public and never rate limited (plugins/rate-limit.ts).
    app.get('/livez', { config: { scope: 'public', rateLimit: false } }, () => ({ status: 'ok' }));
    app.get('/readyz', { config: { scope: 'public', rateLimit: false } }, async (_request, reply) => {
      let ready = deps.policies.registry.size > 0;
      // A mode that uses NER is ready only when the sidecar's own readiness answers within 2 s.
      if (ready && deps.config.detector.mode !== 'builtin') ready = deps.ner !== undefined && (await deps.ner.ready(2000));
      // An unhealthy audit sink is not ready; asking also drives its (rate-limited) recovery.
      if (ready && deps.audit !== undefined && !deps.audit.healthy()) ready = await deps.audit.probe();
      if (ready) ready = await storesReachable();
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready' });
    });
  };
}

export function systemRoutes(deps: SystemDeps) {
  return function register(app: FastifyInstance): void {
    // Never charged to the caller's rate limit: a throttled client can still see why.
    app.get('/v1/health', { config: { scope: 'authenticated', rateLimit: false } }, async () => {
      const registry = deps.policies.registry;
      const policiesOk = registry.size > 0;
      const auditOk = deps.audit?.healthy() ?? true;
      // A failing audit sink refuses requests under audit.strict (unhealthy), else loses events (degraded).
      const auditStatus = auditOk ? 'healthy' : deps.config.audit.strict ? 'unhealthy' : 'degraded';
      // A failed reload keeps the running set or ring (still serving: degraded, not unhealthy);
      // the files on disk are what the operator must fix.
      const policyReloadFailed = deps.reload.lastOutcome('policies')?.ok === false;
      const keyringReloadFailed = deps.reload.lastOutcome('keyring')?.ok === false;
      const policiesStatus = !policiesOk ? 'unhealthy' : policyReloadFailed ? 'degraded' : 'healthy';
      const sessionStatus = keyringReloadFailed ? 'degraded' : 'healthy';
      const detector = await detectorHealth(deps);
      const statuses = [policiesStatus, sessionStatus, auditStatus, detector.status];
      return {
        status: statuses.includes('unhealthy') ? 'unhealthy' : statuses.includes('degraded') ? 'degraded' : 'healthy',
        version: deps.version,
        uptime_seconds: Math.floor((deps.now() - deps.startedAtMs) / 1000),
        components: {
          detector,
          session: {
            status: sessionStatus,
            message: `${deps.config.session.backend}${keyringReloadFailed ? '; the last key-ring reload failed, the previous ring is in use' : ''}`,
          },
          policies: {
            status: policiesStatus,
            message: `${registry.size} ${registry.size === 1 ? 'policy' : 'policies'} loaded (default '${registry.defaultName}')${policyReloadFailed ? '; the last reload failed, the previous set is in use' : ''}`,
          },
          audit: {
            status: auditStatus,
            message: `${deps.audit?.backend ?? deps.config.audit.backend}${deps.config.audit.strict ? ', strict' : ''}${auditOk ? '' : ': cannot record events'}`,
          },
        },
      };
    });

    app.get('/v1/capabilities', { config: { scope: 'authenticated' } }, async () => {
      const builtin = new Set(BUILTIN_REGEX_TYPES);
      const ner = await nerAvailability(deps);
      return {
        entity_types: [...ENTITY_CATALOG.values()]
          .filter((info) => builtin.has(info.type) || info.source === 'python_ner')
          .map((info) => ({
            type: info.type,
            prefix: info.prefix,
            protection_level: info.protectionLevel,
            source: info.source,
            // Languages the detector is tuned for; '*' = language-independent format.
            languages: [...info.languages],
          })),
        languages: [...ABSTRACT_LANGUAGES],
        detectors: [
          { name: 'builtin_regex', type: 'builtin' },
          ...(deps.ner !== undefined ? [{ name: 'python_ner', type: 'python' }] : []),
          { name: 'custom_pattern', type: 'custom' },
        ],
        restore_modes: [...RESTORE_MODES],
        output_channels: [...BUILTIN_CHANNELS],
        // Active only while the sidecar answers detect calls (not merely configured).
        ner_active: ner?.answering === true,
        max_batch_size: deps.config.limits.max_batch_size,
        // /v1/transform/file formats and the image routes' OCR (501 when not available).
        file_formats: [...FILE_FORMATS],
        max_file_size_bytes: deps.config.file_upload.max_size_bytes,
        ocr: { engine: deps.config.ocr.engine, languages: [...deps.config.ocr.languages], available: ocrSetup(deps.config.ocr).problem === undefined },
      };
    });
  };
}
