// HTTP tests through inject(): the transform -> rehydrate loop, every restore mode and channel,
// tampering, validation and error envelopes, and a log scan for leaked values.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const EMAIL = 'jane.canary@example.org';
const CARD = '4111 1111 1111 1111';
const TEXT = `Contact ${EMAIL} or pay with ${CARD} today.`;

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

async function transform(body: Record<string, unknown>) {
  const response = await post(t.app, '/v1/transform', body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe('POST /v1/transform', () => {
  it('tokenizes detected values and returns the documented fields', async () => {
    const body = await transform({ input: TEXT, trace_id: 'trace-123' });
    expect(body.safe_text).not.toContain(EMAIL);
    expect(body.safe_text).not.toContain('4111');
    expect(body.safe_text).toMatch(/\{\{email:e_001:[0-9a-f]{12}\}\}/);
    expect(body.safe_text).toMatch(/\{\{credit_card:cc_001:[0-9a-f]{12}\}\}/);
    expect(body.session_state).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const email = body.entities.find((entity: any) => entity.type === 'email');
    expect(email).toMatchObject({ action_applied: 'tokenize', detector: 'builtin_regex', protection_level: 'high' });
    expect(TEXT.slice(email.span.start, email.span.end)).toBe(EMAIL);
    expect(body.entity_context.map((item: any) => item.type).sort()).toEqual(['credit_card', 'email']);
    expect(body.entity_summary).toEqual({ email: 1, credit_card: 1 });
    expect(body.stats).toMatchObject({ entities_detected: 2, entities_transformed: 2, entities_blocked: 0 });
    expect(body.detector_mode).toBe('builtin_regex');
    expect(body.warnings[0]).toMatch(/NER/);
    expect(typeof body.policy_version).toBe('string');
    expect(body.trace_id).toBe('trace-123');
  });

  it('generates a UUID v4 trace id when none is given', async () => {
    const body = await transform({ input: 'nothing here' });
    expect(body.trace_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.entities).toEqual([]);
  });

  it('reports spans in code points, not UTF-16 units', async () => {
    const input = `😀😀 mail ${EMAIL}`;
    const body = await transform({ input });
    const span = body.entities[0].span;
    // Spans are code points, which is exactly what string spread yields.
    expect([...input].slice(span.start, span.end).join('')).toBe(EMAIL);
    expect(span.start).toBe(8);
  });

  it('reuses tokens for the same value and continues a session across turns', async () => {
    const first = await transform({ input: `A ${EMAIL} and again ${EMAIL.toUpperCase()}` });
    const tokens = first.entities.map((entity: any) => entity.token);
    expect(new Set(tokens).size).toBe(1);
    const second = await transform({ input: `Reply to ${EMAIL} and bob@example.net`, session_state: first.session_state });
    expect(second.entities[0].token).toBe(tokens[0]);
    expect(second.entities[1].token).toMatch(/^\{\{email:e_002:/);
    const restored = await post(t.app, '/v1/rehydrate', {
      output: `${first.entities[0].token} / ${second.entities[1].token}`,
      session_state: second.session_state,
    });
    expect(restored.body.restored_text).toBe(`${EMAIL} / bob@example.net`);
  });

  it('supports custom patterns and rejects unsafe ones without echoing them', async () => {
    const body = await transform({
      input: 'ticket TCK-123456 is open',
      custom_patterns: [{ entity_type: 'ticket', pattern: 'TCK-[0-9]{6}', confidence: 0.9 }],
    });
    expect(body.safe_text).toMatch(/^ticket \{\{custom:ticket:c_001:[0-9a-f]{12}\}\} is open$/);
    const bad = await post(t.app, '/v1/transform', {
      input: 'x',
      custom_patterns: [{ entity_type: 'ticket', pattern: '(canaryzz)\\1' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VEIL_VALIDATION_FAILED');
    expect(JSON.stringify(bad.body)).not.toContain('canaryzz');
  });

  it('rejects server-side session ids under the sealed backend and NER without a sidecar', async () => {
    expect((await post(t.app, '/v1/transform', { input: 'x', session_id: 'abc' })).status).toBe(400);
    const ner = await post(t.app, '/v1/transform', { input: 'x', detectors: ['python_ner'] });
    expect(ner.status).toBe(400);
    expect(ner.body.error).toMatch(/python_ner/);
  });
});

describe('POST /v1/rehydrate', () => {
  async function roundTrip(extra: Record<string, unknown>, input = TEXT) {
    const transformed = await transform({ input });
    const response = await post(t.app, '/v1/rehydrate', {
      output: `Model says: ${transformed.safe_text}`,
      session_state: transformed.session_state,
      ...extra,
    });
    return { transformed, response };
  }

  it('restores every token in full on user_output', async () => {
    const { response } = await roundTrip({ trace_id: 'abc' });
    expect(response.status).toBe(200);
    expect(response.body.restored_text).toBe(`Model says: ${TEXT}`);
    expect(response.body.tokens_resolved).toBe(2);
    expect(response.body.tokens_unresolved).toEqual([]);
    expect(response.body.trace_id).toBe('abc');
    expect(typeof response.body.stats.rehydrate_time_ms).toBe('number');
  });

  it('applies restore modes', async () => {
    const masked = await roundTrip({ restore_mode: 'masked' });
    expect(masked.response.body.restored_text).not.toContain(EMAIL);
    expect(masked.response.body.restored_text).toContain('*');
    const none = await roundTrip({ restore_mode: 'none' });
    expect(none.response.body.restored_text).toBe('Model says: Contact [REDACTED] or pay with [REDACTED] today.');
    const abstract = await roundTrip({ restore_mode: 'abstract' });
    expect(abstract.response.body.restored_text).not.toContain(EMAIL);
    expect(abstract.response.body.restored_text).toMatch(/\[[^\]]+\]/);
    const partial = await roundTrip({ restore_mode: 'partial' });
    expect(partial.response.body.restored_text).toContain('1111');
    expect(partial.response.body.restored_text).not.toContain(CARD);
    const formatted = await roundTrip({ restore_mode: 'formatted' });
    expect(formatted.response.body.restored_text).toContain(EMAIL);
  });

  it('clamps by channel ceiling; custom channels restore nothing; bad names are rejected', async () => {
    const logSafe = await roundTrip({ output_channel: 'log_safe' });
    expect(logSafe.response.body.restored_text).toBe('Model says: Contact [REDACTED] or pay with [REDACTED] today.');
    const exported = await roundTrip({ output_channel: 'export' });
    expect(exported.response.body.restored_text).not.toContain(EMAIL);
    const custom = await roundTrip({ output_channel: 'partner_portal' });
    expect(custom.response.body.restored_text).not.toContain(EMAIL);
    expect(custom.response.body.restored_text).toContain('[REDACTED]');
    const bad = await roundTrip({ output_channel: 'Bad Channel!' });
    expect(bad.response.status).toBe(400);
    expect(bad.response.body.code).toBe('VEIL_VALIDATION_FAILED');
  });

  it('never resolves a wrong cap, a guessed id or a swapped type, and reports them alike', async () => {
    const transformed = await transform({ input: TEXT });
    const token: string = transformed.entities[0].token;
    const [, type, id, cap] = /^\{\{([a-z_]+):([a-z]+_\d+):([0-9a-f]{12})\}\}$/.exec(token)!;
    const wrongCap = `{{${type}:${id}:${cap!.slice(0, 11)}${cap!.endsWith('0') ? '1' : '0'}}}`;
    const guessedId = `{{${type}:e_999:${cap}}}`;
    const swapped = `{{us_ssn:${id}:${cap}}}`;
    const noCap = `{{${type}:${id}}}`;
    const response = await post(t.app, '/v1/rehydrate', {
      output: [wrongCap, guessedId, swapped, noCap].join(' '),
      session_state: transformed.session_state,
    });
    expect(response.body.tokens_resolved).toBe(0);
    expect(response.body.restored_text).not.toContain(EMAIL);
    const reasons = response.body.tokens_unresolved.map((item: any) => item.reason);
    expect(reasons.slice(0, 3)).toEqual(['unknown', 'unknown', 'unknown']);
  });

  it('restores a restored value that looks like a token only once (no second-order expansion)', async () => {
    const first = await transform({ input: 'a@example.com' });
    const firstToken = first.entities[0].token;
    // A second value whose text is literally the first token.
    const second = await transform({
      input: 'id X-1',
      session_state: first.session_state,
      custom_patterns: [{ entity_type: 'ref', pattern: 'X-1' }],
    });
    const response = await post(t.app, '/v1/rehydrate', { output: second.entities[0].token, session_state: second.session_state });
    expect(response.body.restored_text).toBe('X-1');
    expect(firstToken).toMatch(/^\{\{email/);
  });

  it('fails closed on tampered, foreign and expired session state', async () => {
    const transformed = await transform({ input: TEXT });
    const blob: string = transformed.session_state;
    const last = blob.at(-1) === 'A' ? 'B' : 'A';
    const tampered = blob.slice(0, -1) + last;
    for (const session_state of [tampered, 'v1.x.y', 'garbage', blob.slice(0, 20)]) {
      const response = await post(t.app, '/v1/rehydrate', { output: transformed.safe_text, session_state });
      expect(response.status).toBe(410);
      expect(response.body.code).toBe('VEIL_SESSION_EXPIRED');
    }
    const other = await buildTestApp({ env: { VEIL_SESSION_SECRET: 'ab'.repeat(32) } });
    try {
      const foreign = await post(other.app, '/v1/rehydrate', { output: transformed.safe_text, session_state: blob });
      expect(foreign.status).toBe(410);
    } finally {
      await other.close();
    }
    const clocked = await buildTestApp();
    try {
      const fresh = await post(clocked.app, '/v1/transform', { input: TEXT });
      clocked.advance(3601);
      const expired = await post(clocked.app, '/v1/rehydrate', { output: fresh.body.safe_text, session_state: fresh.body.session_state });
      expect(expired.status).toBe(410);
    } finally {
      await clocked.close();
    }
  });

  it('requires session_state', async () => {
    const response = await post(t.app, '/v1/rehydrate', { output: 'x' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/session_state/);
  });
});

describe('POST /v1/detect', () => {
  it('returns values under dev auth by default and suppresses them on request', async () => {
    const withValues = await post(t.app, '/v1/detect', { input: TEXT });
    expect(withValues.status).toBe(200);
    expect(withValues.body.entities.map((entity: any) => entity.value)).toContain(EMAIL);
    expect(withValues.body.stats.detectors_used).toEqual(['builtin_regex']);
    const suppressed = await post(t.app, '/v1/detect', { input: TEXT, include_values: false });
    expect(suppressed.body.entities.every((entity: any) => entity.value === '')).toBe(true);
  });

  it('filters by entity type and threshold', async () => {
    const filtered = await post(t.app, '/v1/detect', { input: TEXT, entity_types: ['email'] });
    expect(filtered.body.entities.map((entity: any) => entity.type)).toEqual(['email']);
    const strict = await post(t.app, '/v1/detect', { input: TEXT, threshold: 1.0 });
    expect(strict.body.entities.every((entity: any) => entity.confidence >= 1)).toBe(true);
    expect((await post(t.app, '/v1/detect', { input: TEXT, threshold: 1.5 })).status).toBe(400);
  });
});

describe('POST /v1/evaluate-policy, /v1/entity-types, /v1/patterns', () => {
  it('evaluates the default policy per channel', async () => {
    const response = await post(t.app, '/v1/evaluate-policy', {
      entities: [{ type: 'email' }, { type: 'credit_card', value: CARD }],
      output_channel: 'export',
    });
    expect(response.status).toBe(200);
    expect(response.body.decisions).toHaveLength(2);
    expect(response.body.decisions[0]).toMatchObject({ entity_type: 'email', action: 'tokenize', restore_mode: 'masked' });
    expect(typeof response.body.policy_version).toBe('string');
  });

  it('validates names and patterns without persisting anything', async () => {
    expect((await post(t.app, '/v1/entity-types', { name: 'ticket_id' })).body).toEqual({ valid: true, type: 'custom:ticket_id' });
    expect((await post(t.app, '/v1/entity-types', { name: 'Bad Name' })).body.valid).toBe(false);
    const ok = await post(t.app, '/v1/patterns', { entity_type: 'ticket', pattern: 'TCK-[0-9]+', sample: 'a TCK-12 b' });
    expect(ok.body).toMatchObject({ valid: true, matches: [{ start: 2, end: 8 }] });
    const bad = await post(t.app, '/v1/patterns', { entity_type: 'ticket', pattern: '(?=canaryq)' });
    expect(bad.body.valid).toBe(false);
    expect(JSON.stringify(bad.body)).not.toContain('canaryq');
  });
});

describe('policies from a directory', () => {
  it('applies deny, redact and allow rules', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-pol-'));
    writeFileSync(
      join(dir, 'strict.yaml'),
      [
        'name: strict',
        'version: "2.0.0"',
        'rules:',
        '  - name: deny-ssn',
        '    match: {entity_type: us_ssn}',
        '    action: deny',
        '  - name: redact-cards',
        '    match: {entity_type: credit_card}',
        '    action: redact',
        '  - name: allow-ip',
        '    match: {entity_type: ip_address}',
        '    action: allow',
        '  - name: rest',
        '    match: {}',
        '    action: tokenize',
        '    restore_mode: full',
      ].join('\n'),
    );
    const app = await buildTestApp({ overrides: { policy: { directory: dir, default: 'strict' } } });
    try {
      const ok = await post(app.app, '/v1/transform', { input: `${CARD} from 10.1.2.3 by ${EMAIL}` });
      expect(ok.status).toBe(200);
      expect(ok.body.safe_text).toMatch(/^\[REDACTED\] from 10\.1\.2\.3 by \{\{email:/);
      expect(ok.body.stats.entities_blocked).toBe(1);
      expect(ok.body.policy_version).toBe('2.0.0');
      const denied = await post(app.app, '/v1/transform', { input: 'SSN 219-09-9999 for canary' });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('VEIL_POLICY_DENIED');
      expect(JSON.stringify(denied.body)).not.toContain('219-09-9999');
      expect((await post(app.app, '/v1/transform', { input: 'x', policy: 'nope' })).status).toBe(400);
    } finally {
      await app.close();
    }
  });
});

describe('errors and probes', () => {
  it('uses the envelope for 404, 405, 415, 413 and malformed bodies without echoing values', async () => {
    const notFound = await t.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json()).toMatchObject({ code: 'VEIL_NOT_FOUND' });
    expect(notFound.json().request_id).toMatch(/^[0-9a-f-]{36}$/);
    const wrongMethod = await t.app.inject({ method: 'GET', url: '/v1/transform' });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.json().code).toBe('VEIL_METHOD_NOT_ALLOWED');
    expect(wrongMethod.headers.allow).toContain('POST');
    const media = await t.app.inject({ method: 'POST', url: '/v1/transform', payload: 'input=canary', headers: { 'content-type': 'text/plain' } });
    expect(media.statusCode).toBe(415);
    expect(media.json().code).toBe('VEIL_UNSUPPORTED_MEDIA_TYPE');
    const broken = await t.app.inject({ method: 'POST', url: '/v1/transform', payload: '{"input": "canary-json@example.com', headers: { 'content-type': 'application/json' } });
    expect(broken.statusCode).toBe(400);
    expect(broken.body).not.toContain('canary-json');
    const unknown = await post(t.app, '/v1/transform', { input: 'x', 'secret-canary@example.com': 1 });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).not.toContain('secret-canary');
    const named = await post(t.app, '/v1/transform', { input: 'x', bogus: 'v-canary' });
    expect(named.body.error).toBe('bogus: unknown field');
    const wrongType = await post(t.app, '/v1/transform', { input: 12345 });
    expect(wrongType.body.error).toBe('input: must be string');
    const small = await buildTestApp({ overrides: { server: { body_limit_bytes: 1024 } } });
    try {
      const big = await post(small.app, '/v1/transform', { input: 'x'.repeat(4096) });
      expect(big.status).toBe(413);
      expect(big.body.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    } finally {
      await small.close();
    }
  });

  it('serves probes, health and capabilities', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/livez' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
    const health = (await t.app.inject({ method: 'GET', url: '/v1/health' })).json();
    expect(health.status).toBe('healthy');
    expect(health.components.detector.message).toBe('builtin_only');
    expect(health.components.session.message).toBe('sealed');
    const capabilities = (await t.app.inject({ method: 'GET', url: '/v1/capabilities' })).json();
    expect(capabilities.entity_types.find((entry: any) => entry.type === 'email')).toMatchObject({ prefix: 'e' });
    expect(capabilities.languages.length).toBeGreaterThanOrEqual(30);
    expect(capabilities.restore_modes).toContain('abstract');
    expect(capabilities.ner_active).toBe(false);
  });

  it('never logs a detected or submitted value', () => {
    const logs = t.logs.text();
    expect(logs).toContain('request failed');
    expect(logs).toContain('transform_completed');
    for (const canary of [EMAIL, CARD, '4111 1111', 'canary', 'TCK-123456', 'bob@example.net']) expect(logs).not.toContain(canary);
  });
});

describe('large inputs on worker threads', () => {
  it('parses, transforms and rehydrates off the event loop with the same results and errors', async () => {
    const app = await buildTestApp({ overrides: { transform: { offload_threshold_bytes: 64 } } });
    try {
      const input = `${'Some long preamble text. '.repeat(8)}Mail ${EMAIL}, card ${CARD}. 😀 again ${EMAIL}`;
      const transformed = await post(app.app, '/v1/transform', { input, trace_id: 'big-1' });
      expect(transformed.status, JSON.stringify(transformed.body)).toBe(200);
      expect(transformed.body.safe_text).not.toContain(EMAIL);
      expect(transformed.body.trace_id).toBe('big-1');
      const email = transformed.body.entities.find((entity: any) => entity.type === 'email');
      expect([...input].slice(email.span.start, email.span.end).join('')).toBe(EMAIL);
      expect(transformed.body.entities.filter((entity: any) => entity.token === email.token)).toHaveLength(2);

      const output = `${'The model answers at length. '.repeat(4)}${transformed.body.safe_text}`;
      const restored = await post(app.app, '/v1/rehydrate', { output, session_state: transformed.body.session_state });
      expect(restored.status).toBe(200);
      expect(restored.body.restored_text).toBe(`${'The model answers at length. '.repeat(4)}${input}`);

      const masked = await post(app.app, '/v1/rehydrate', { output, session_state: transformed.body.session_state, output_channel: 'export' });
      expect(masked.body.restored_text).not.toContain(EMAIL);

      const blob: string = transformed.body.session_state;
      const tampered = await post(app.app, '/v1/rehydrate', { output, session_state: `${blob.slice(0, -2)}AA` });
      expect(tampered.status).toBe(410);
      expect(tampered.body.code).toBe('VEIL_SESSION_EXPIRED');

      const continued = await post(app.app, '/v1/transform', { input: `${input} and bob@example.net`, session_state: blob });
      expect(continued.status).toBe(200);
      expect(continued.body.entities.find((entity: any) => entity.type === 'email').token).toBe(email.token);

      const badPattern = await post(app.app, '/v1/transform', { input, custom_patterns: [{ entity_type: 'x', pattern: '(?=canaryw)' }] });
      expect(badPattern.status).toBe(400);
      expect(JSON.stringify(badPattern.body)).not.toContain('canaryw');

      const broken = await app.app.inject({
        method: 'POST',
        url: '/v1/transform',
        payload: `{"input": "${'canary-big@example.com '.repeat(10)}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(broken.statusCode).toBe(400);
      expect(broken.json().code).toBe('VEIL_VALIDATION_FAILED');
      expect(broken.body).not.toContain('canary-big');

      const poisoned = await app.app.inject({
        method: 'POST',
        url: '/v1/detect',
        payload: `{"input": "${'x'.repeat(100)}", "__proto__": {"polluted": true}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(poisoned.statusCode).toBe(400);

      const detected = await post(app.app, '/v1/detect', { input });
      expect(detected.body.entities.map((entity: any) => entity.type)).toEqual(['email', 'credit_card', 'email']);
      expect(app.logs.text()).not.toContain(EMAIL);
    } finally {
      await app.close();
    }
  });
});

describe('hostile bodies', () => {
  it('rejects JSON nested 100,000 deep and huge arrays of patterns with the envelope', async () => {
    const deep = `{"input":"x","context":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const nested = await t.app.inject({ method: 'POST', url: '/v1/transform', payload: deep, headers: { 'content-type': 'application/json' } });
    expect(nested.statusCode).toBe(413);
    expect(nested.json()).toMatchObject({ code: 'VEIL_PAYLOAD_TOO_LARGE', error: 'body: nested deeper than 128 levels' });
    const many = await post(t.app, '/v1/transform', { input: 'x', custom_patterns: Array.from({ length: 1000 }, () => ({ entity_type: 'x', pattern: 'a' })) });
    expect(many.status).toBe(400);
    expect(many.body.error).toMatch(/custom_patterns/);
  });
});

describe('restore controls through HTTP', () => {
  it('honours transform.context_strategy', async () => {
    for (const [strategy, hasContext, hasSummary] of [
      ['referenced_only', true, true],
      ['type_summary', false, true],
      ['none', false, false],
    ] as const) {
      const app = await buildTestApp({ overrides: { transform: { context_strategy: strategy } } });
      try {
        const first = await post(app.app, '/v1/transform', { input: `a ${EMAIL}` });
        const second = await post(app.app, '/v1/transform', { input: `card ${CARD}`, session_state: first.body.session_state });
        expect(second.body.entity_context !== undefined, strategy).toBe(hasContext);
        expect(second.body.entity_summary !== undefined, strategy).toBe(hasSummary);
        if (strategy === 'referenced_only') expect(second.body.entity_context.map((item: any) => item.type)).toEqual(['credit_card']);
      } finally {
        await app.close();
      }
    }
    const full = await transform({ input: `a ${EMAIL}` });
    const next = await transform({ input: `card ${CARD}`, session_state: full.session_state });
    expect(next.entity_context.map((item: any) => item.type).sort()).toEqual(['credit_card', 'email']);
  });

  it('lets protection_overrides, restore_mode and restore_overrides only tighten', async () => {
    const tightened = await transform({ input: `mail ${EMAIL}`, protection_overrides: { email: 'masked' } });
    const asked = await post(t.app, '/v1/rehydrate', { output: tightened.safe_text, session_state: tightened.session_state, restore_mode: 'full' });
    expect(asked.body.restored_text).not.toContain(EMAIL);
    expect(asked.body.restored_text).toMatch(/\*/);

    const both = await transform({ input: `mail ${EMAIL} and bob@example.net` });
    const [first, second] = both.entities.map((entity: any) => entity.token as string);
    const idOf = (token: string) => token.split(':')[1]!;
    const per = await post(t.app, '/v1/rehydrate', {
      output: `${first} ${second}`,
      session_state: both.session_state,
      restore_overrides: { [idOf(first ?? "")]: 'none' },
    });
    expect(per.body.restored_text).toBe('[REDACTED] bob@example.net');
  });

  it('re-resolves caller-gated overrides against the rehydrate caller', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-pol-'));
    writeFileSync(
      join(dir, 'audit.yaml'),
      [
        'name: audit',
        'version: "1"',
        'rules:',
        '  - name: emails-abstract',
        '    match: {entity_type: email}',
        '    action: tokenize',
        '    restore_mode: abstract',
        '  - name: rest',
        '    match: {}',
        '    action: tokenize',
        'override_restore_mode:',
        '  - {caller_role: supervisor, caller_purpose: audit, entity_types: [email], restore_mode: full}',
        '  - {caller_role: intern, restore_mode: none}',
      ].join('\n'),
    );
    const app = await buildTestApp({ overrides: { policy: { directory: dir } } });
    try {
      // The transform caller is a supervisor; what matters is the rehydrate caller.
      const transformed = await post(app.app, '/v1/transform', { input: `mail ${EMAIL}`, context: { caller_role: 'supervisor', caller_purpose: 'audit' } });
      const rehydrate = (context?: object) =>
        post(app.app, '/v1/rehydrate', { output: transformed.body.safe_text, session_state: transformed.body.session_state, ...(context ? { context } : {}) });
      expect((await rehydrate()).body.restored_text).toBe('mail [email address]');
      expect((await rehydrate({ caller_role: 'supervisor' })).body.restored_text).toBe('mail [email address]');
      expect((await rehydrate({ caller_role: 'supervisor', caller_purpose: 'audit' })).body.restored_text).toBe(`mail ${EMAIL}`);
      expect((await rehydrate({ caller_role: 'intern' })).body.restored_text).toBe('mail [REDACTED]');
      const supervisorOnLogSafe = await post(app.app, '/v1/rehydrate', {
        output: transformed.body.safe_text,
        session_state: transformed.body.session_state,
        output_channel: 'log_safe',
        context: { caller_role: 'supervisor', caller_purpose: 'audit' },
      });
      expect(supervisorOnLogSafe.body.restored_text).toBe('mail [REDACTED]');
    } finally {
      await app.close();
    }
  });

  it('localizes abstract labels by session language and isolates right-to-left values', async () => {
    const french = await transform({ input: `courriel ${EMAIL}`, language: 'fr' });
    const abstract = await post(t.app, '/v1/rehydrate', { output: french.safe_text, session_state: french.session_state, restore_mode: 'abstract' });
    expect(abstract.body.restored_text).toBe('courriel [adresse e-mail]');

    const rtl = await transform({
      input: 'ref שלום-42 here',
      custom_patterns: [{ entity_type: 'hebrew_ref', pattern: 'שלום-[0-9]+' }],
    });
    const restored = await post(t.app, '/v1/rehydrate', { output: rtl.safe_text, session_state: rtl.session_state });
    expect(restored.body.restored_text).toBe('ref \u2068שלום-42\u2069 here');
  });
});

describe('token repair at rehydrate', () => {
  it('restores tokens a model mangled when id and cap are intact, and never guesses a cap', async () => {
    const made = await transform({ input: `mail ${EMAIL}` });
    const token: string = made.entities[0].token;
    const [, , id, cap] = /^\{\{([a-z_]+):([a-z]+_\d+):([0-9a-f]{12})\}\}$/.exec(token)!;
    const mangled = [`{{ EMAIL : ${id} : ${cap} }}`, `\\{\\{email:${id}:${cap}\\}\\}`, `{email:${id}:${cap}}}`, `{{email:${id}:\n${cap}}}`];
    for (const variant of mangled) {
      const response = await post(t.app, '/v1/rehydrate', { output: `to ${variant}.`, session_state: made.session_state });
      expect(response.body.restored_text, variant).toBe(`to ${EMAIL}.`);
    }
    // An all-digit cap has no case to change; then flip its last digit instead.
    const otherCap = cap!.toUpperCase() !== cap ? cap!.toUpperCase() : `${cap.slice(0, 11)}${cap.endsWith('0') ? '1' : '0'}`;
    const refused = [`{{email:${id}:${otherCap}}}`, `{{email:${id}:${cap!.slice(0, 11)}}}`, `{email:${id}:${cap}}`, `{{email:${id}:\u200b${cap}}}`];
    for (const variant of refused) {
      const response = await post(t.app, '/v1/rehydrate', { output: variant, session_state: made.session_state });
      expect(response.body.restored_text, variant).not.toContain(EMAIL);
      expect(response.body.tokens_resolved).toBe(0);
    }
  });
});
