// Unit tests of buildEvent: the serialized record byte for byte (field order, omitted fields,
// the timestamp's text), so a change made for speed (issue 20) cannot change the audit line; and
// the one fixed shape every event has, whichever fields apply.
import { describe, expect, it } from 'vitest';
import { buildEvent, fingerprint, type EventContext } from './event.js';
import type { CollectedFacts } from './facts.js';

const NOW = Date.UTC(2026, 10, 26, 22, 0, 0);

function context(fields: Partial<EventContext> = {}): EventContext {
  return { method: 'POST', url: '/v1/transform', requestId: 'req-1', status: 200, durationMs: 1.23456, tenant: 'acme', detectorMode: 'builtin', nowMs: NOW, ...fields };
}

const CASES: { name: string; context: EventContext; facts: CollectedFacts; json: string }[] = [
  {
    name: 'a transform with every fact',
    context: context({ identity: 'svc-a', replayed: true }),
    facts: {
      policy: 'default',
      session_id: 'sess-raw',
      trace_id: 'trace-raw',
      entity_types: new Set(['phone', 'email']),
      entity_count: 3,
      entities_blocked: 1,
      entities_tokenized: 2,
      prompt_security: true,
    },
    json:
      '{"event_type":"transform","timestamp":"2026-11-26T22:00:00.000Z","request_id":"req-1","route":"POST /v1/transform","status":200,' +
      `"identity":"svc-a","tenant_id":"acme","session_id":"${fingerprint('sess-raw')}","policy":"default","entity_types":["email","phone"],` +
      '"entity_count":3,"entities_blocked":1,"entities_tokenized":2,"duration_ms":1.235,"detector_mode":"builtin","prompt_security":true,' +
      `"trace_id":"${fingerprint('trace-raw')}","idempotency_replayed":true}`,
  },
  {
    name: 'a rehydrate without facts',
    context: context({ url: '/v1/rehydrate' }),
    facts: {},
    json:
      '{"event_type":"rehydrate","timestamp":"2026-11-26T22:00:00.000Z","request_id":"req-1","route":"POST /v1/rehydrate","status":200,' +
      '"tenant_id":"acme","duration_ms":1.235,"output_guard":false}',
  },
  {
    name: 'a failed authentication (no principal, a security event)',
    context: context({ url: '/v1/sessions/status', status: 401, tenant: null, failure: { code: 'VEIL_AUTH_INVALID', reason: 'bad key' } }),
    facts: {},
    json:
      '{"event_type":"auth_failed","timestamp":"2026-11-26T22:00:00.000Z","request_id":"req-1","route":"POST /v1/sessions/status","status":401,' +
      '"tenant_id":null,"duration_ms":1.235,"failure_code":"VEIL_AUTH_INVALID","failure_reason":"bad key"}',
  },
  {
    name: 'a write-ahead intent (no status yet) with a route-reported failure',
    context: context({ url: '/v1/revoke', status: undefined, phase: 'intent' }),
    facts: { item_count: 2, items_failed: 1, failure_code: 'VEIL_NOT_FOUND' },
    json:
      '{"event_type":"revoke","timestamp":"2026-11-26T22:00:00.000Z","request_id":"req-1","route":"POST /v1/revoke",' +
      '"tenant_id":"acme","item_count":2,"items_failed":1,"duration_ms":1.235,"phase":"intent","failure_code":"VEIL_NOT_FOUND"}',
  },
];

describe('buildEvent', () => {
  it('serializes each event byte for byte: fields in the record order, the absent ones omitted', () => {
    for (const { name, context: ctx, facts, json } of CASES) expect(JSON.stringify(buildEvent(ctx, facts)), name).toBe(json);
  });

  it('gives every event the same fields in the same order (one hidden class), whichever apply', () => {
    const shapes = new Set(CASES.map(({ context: ctx, facts }) => Object.keys(buildEvent(ctx, facts)).join(',')));
    expect(shapes.size).toBe(1);
  });

  it('derives the route, the operation and its kind the same on first use and from the per-route cache', () => {
    // The rules before they were cached: every request tested the operation against these.
    const detecting = /^(transform|transform_stream|transform_file|transform_image|redact_image|detect|batch_transform|batch_detect|rag_ingest.*|proxy_.*)$/;
    const transforming = /^(transform|transform_stream|transform_file|transform_image|redact_image|batch_transform|rag_ingest.*|proxy_.*)$/;
    const rehydrating = /^(rehydrate|rehydrate_stream|rehydrate_file|rag_answer|proxy_chat_completions)$/;
    const routes: [string, string, string][] = [
      ['POST', '/v1/transform', 'transform'], ['POST', '/v1/rehydrate', 'rehydrate'], ['POST', '/v1/detect', 'detect'],
      ['POST', '/v1/rag/ingest', 'rag_ingest'], ['POST', '/v1/rag/answer', 'rag_answer'], ['POST', '/v1/rehydrate/file', 'rehydrate_file'],
      ['POST', '/openai/v1/chat/completions', 'proxy_chat_completions'], ['GET', '/v1/health', 'health'], ['DELETE', '/v1/sessions', 'session_delete'],
      ['GET', '/v1/transform', 'transform'], ['POST', '/', 'request'],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [method, url, operation] of routes) {
        for (const eventType of [undefined, 'policy_reloaded', 'rehydrate', 'transform_file', 'detect']) {
          const event = buildEvent(context({ method, url }), { ...(eventType !== undefined ? { event_type: eventType } : {}) });
          const name = eventType ?? operation;
          expect(event.event_type, `${method} ${url} ${String(eventType)}`).toBe(name);
          expect(event.route).toBe(`${method} ${url}`);
          expect(event.detector_mode).toBe(detecting.test(name) ? 'builtin' : undefined);
          expect(event.prompt_security).toBe(transforming.test(name) ? false : undefined);
          expect(event.output_guard).toBe(rehydrating.test(name) ? false : undefined);
        }
      }
    }
  });
});
