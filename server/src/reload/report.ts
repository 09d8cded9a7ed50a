// What a reload attempt leaves behind: one log line, one metric increment and one audit event
// (`policy_reloaded`, `keyring_reloaded`, `api_keys_reloaded`, `tenants_reloaded`) for every change and every
// failure. A reload requested through the admin API is audited as that request (its event type
// is policy_reloaded, its outcome set by routes.ts); watch, signal and cluster reloads have no
// request, so theirs is a system event recorded on the sink directly. Everything here is value-free: file names, fields, rules, kids
// counts and hashes.
import type { FastifyBaseLogger } from 'fastify';
import { systemEvent } from '../audit/event.js';
import type { AuditSink } from '../audit/sink.js';
import type { VeilMetrics } from '../metrics/registry.js';
import type { ReloadEvent, ReloadSourceName } from './manager.js';

const EVENT_TYPES: Readonly<Record<ReloadSourceName, string>> = {
  policies: 'policy_reloaded',
  keyring: 'keyring_reloaded',
  api_keys: 'api_keys_reloaded',
  tenants: 'tenants_reloaded',
};

/** The failure code a refused reload is audited with. */
export const RELOAD_FAILURE_CODE = 'VEIL_VALIDATION_FAILED';

export function reloadFailureReason(event: Pick<ReloadEvent, 'source' | 'errors' | 'trigger'> & { readonly changed?: boolean }): string {
  const count = event.errors.length;
  // Per-tenant directories apply the good files and keep the last good version of a bad one.
  const outcome = event.changed === true ? 'valid files applied, the others keep their last good version' : 'running state unchanged';
  return `invalid ${event.source} (${count} problem${count === 1 ? '' : 's'}; trigger ${event.trigger}); ${outcome}`;
}

/** At most this many problems are logged per failed reload (the rest are counted). */
const MAX_LOGGED_ERRORS = 20;

export function reportReload(log: FastifyBaseLogger, audit: AuditSink, metrics: VeilMetrics, event: ReloadEvent, nowMs: number): void {
  metrics.reloads.inc({ source: event.source, result: event.ok ? 'success' : 'failure' });
  const fields = {
    event: EVENT_TYPES[event.source],
    source: event.source,
    trigger: event.trigger,
    ok: event.ok,
    changed: event.changed,
    generation: event.generation,
    ...(event.changes !== undefined ? { changes: event.changes.length } : {}),
    ...(event.ok ? {} : { errors: event.errors.slice(0, MAX_LOGGED_ERRORS), error_count: event.errors.length }),
  };
  if (event.ok) log.info(fields, event.changed ? `${event.source} reloaded` : `${event.source} unchanged`);
  else if (event.changed) log.warn(fields, `${event.source} reload partly failed; files with problems keep their last good version`);
  else log.warn(fields, `${event.source} reload failed; the running ${event.source === 'policies' ? 'set' : event.source} is unchanged`);

  // An admin request is audited as itself (routes.ts sets its outcome); an unchanged reload
  // (a touched file) is not worth an event.
  if (event.trigger === 'api' || (event.ok && !event.changed)) return;
  const recorded = systemEvent(
    EVENT_TYPES[event.source],
    event.ok ? {} : { failure_code: RELOAD_FAILURE_CODE, failure_reason: reloadFailureReason(event) },
    nowMs,
  );
  audit.record(recorded).catch(() => {
    log.warn({ event: 'audit_not_recorded', event_type: recorded.event_type }, 'audit_not_recorded');
  });
}
