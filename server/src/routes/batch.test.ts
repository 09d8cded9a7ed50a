// Batch routes through HTTP (interface.md 4.7, 4.8): mixed item types, per-item error isolation,
// shared and independent session modes (only the last successful result carries the shared
// handle, and it restores every item), the batch size limit, include_values, idempotent replay,
// and no value in any error or log line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const EMAIL = 'batch.person@example.com';
const OTHER = 'second.person@example.net';
const SSN = '219-09-9999';
let t: TestApp;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'veil-batch-pol-'));
  writeFileSync(
    join(dir, 'strict.yaml'),
    ['name: strict', 'version: "2.0.0"', 'rules:', '  - name: deny-ssn', '    match: {entity_type: us_ssn}', '    action: deny', '  - name: rest', '    match: {}', '    action: tokenize', '    restore_mode: full'].join('\n'),
  );
  writeFileSync(
    join(dir, 'open.yaml'),
    ['name: open', 'version: "1.0.0"', 'rules:', '  - name: rest', '    match: {}', '    action: tokenize', '    restore_mode: full'].join('\n'),
  );
  t = await buildTestApp({ overrides: { policy: { directory: dir, default: 'open' } } });
});
afterAll(async () => {
  await t.close();
});

async function rehydrate(output: string, sessionState: string): Promise<string> {
  const response = await post(t.app, '/v1/rehydrate', { output, session_state: sessionState });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.restored_text as string;
}

describe('POST /v1/batch/transform', () => {
  it('processes mixed item types independently, each with its own session', async () => {
    const response = await post(t.app, '/v1/batch/transform', {
      items: [
        { text: `write to ${EMAIL}` },
        { input_type: 'json', input_json: { contact: EMAIL, n: 1 } },
        { input_type: 'chat_messages', input_messages: [{ role: 'user', content: `mail ${OTHER}` }] },
      ],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const results = response.body.results;
    expect(results.map((result: any) => result.index)).toEqual([0, 1, 2]);
    expect(JSON.stringify(results)).not.toContain(EMAIL);
    expect(results[1].safe_json.n).toBe(1);
    expect(results[1].safe_text).toBe(JSON.stringify(results[1].safe_json));
    expect(results[2].safe_messages[0].role).toBe('user');
    for (const result of results) {
      expect(result.entities_detected).toBe(1);
      expect(result.entities_transformed).toBe(1);
      expect(typeof result.session_state).toBe('string');
    }
    expect(results[0].session_state).not.toBe(results[1].session_state);
    expect(await rehydrate(results[0].safe_text, results[0].session_state)).toBe(`write to ${EMAIL}`);
    expect(JSON.parse(await rehydrate(results[1].safe_text, results[1].session_state))).toEqual({ contact: EMAIL, n: 1 });
    expect(await rehydrate(results[2].safe_text, results[2].session_state)).toContain(OTHER);
    expect(response.body.stats.total_items).toBe(3);
    expect(response.body.stats.total_entities).toBe(3);
    expect(typeof response.body.stats.total_time_ms).toBe('number');
  });

  it('isolates per-item errors: a denied, malformed or unknown-policy item fails alone, without values', async () => {
    const response = await post(t.app, '/v1/batch/transform', {
      items: [
        { text: `SSN ${SSN} for ${EMAIL}`, policy: 'strict' },
        { text: `ok ${EMAIL}` },
        { text: 'both', input_json: { a: EMAIL } },
        { text: 'x', policy: 'nope' },
        { input_type: 'chat_messages', input_messages: [{ role: 'user', content: EMAIL, secret_field: EMAIL }] },
        { input_type: 'json', text: EMAIL },
      ],
      policy: 'open',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const [denied, ok, both, unknown, chat, mismatch] = response.body.results;
    expect(denied.code).toBe('VEIL_POLICY_DENIED');
    expect(denied.safe_text).toBe('');
    expect(denied.session_state).toBeUndefined();
    expect(ok.error).toBeUndefined();
    expect(typeof ok.session_state).toBe('string');
    for (const failed of [both, unknown, chat, mismatch]) {
      expect(failed.code).toBe('VEIL_VALIDATION_FAILED');
      expect(failed.safe_text).toBe('');
      expect(typeof failed.error).toBe('string');
    }
    const text = JSON.stringify(response.body);
    expect(text).not.toContain(EMAIL);
    expect(text).not.toContain(SSN);
    expect(t.logs.text()).not.toContain(EMAIL);
    expect(t.logs.text()).not.toContain(SSN);
    expect(t.logs.text()).toContain('batch_item_failed');
  });

  it('shared mode: one token map, only the last successful result carries the state, which restores every item', async () => {
    const response = await post(t.app, '/v1/batch/transform', {
      session_mode: 'shared',
      items: [
        { text: `first ${EMAIL}` },
        { input_type: 'json', input_json: { again: EMAIL, other: OTHER } },
        { input_type: 'chat_messages', input_messages: [{ role: 'user', content: `${OTHER} and ${EMAIL}` }] },
        { text: `SSN ${SSN}`, policy: 'strict' },
      ],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const results = response.body.results;
    const token = /\{\{email:[^}]+\}\}/.exec(results[0].safe_text)![0];
    expect(results[1].safe_text).toContain(token);
    expect(results[2].safe_text).toContain(token);
    // The last item failed (policy mismatch with the session or deny): the state moves to item 2.
    expect(results[3].error).toBeDefined();
    expect(results[0].session_state).toBeUndefined();
    expect(results[1].session_state).toBeUndefined();
    const state = results[2].session_state as string;
    expect(typeof state).toBe('string');
    expect(await rehydrate(results[0].safe_text, state)).toBe(`first ${EMAIL}`);
    expect(JSON.parse(await rehydrate(results[1].safe_text, state))).toEqual({ again: EMAIL, other: OTHER });
    expect(await rehydrate(results[2].safe_text, state)).toContain(`${OTHER} and ${EMAIL}`);

    // The combined state continues like any transform session (its counter is past the batch).
    const next = await post(t.app, '/v1/transform', { input: `later ${EMAIL}`, session_state: state });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.safe_text).toContain(token);
    // Continuing twice from the same state is a replay.
    const replay = await post(t.app, '/v1/transform', { input: `later ${EMAIL}`, session_state: state });
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe('VEIL_SESSION_REPLAY');
  });

  it('independent mode (the default) gives each item its own token map', async () => {
    const response = await post(t.app, '/v1/batch/transform', { items: [{ text: EMAIL }, { text: EMAIL }], session_mode: 'independent' });
    expect(response.status).toBe(200);
    const [first, second] = response.body.results;
    expect(typeof first.session_state).toBe('string');
    expect(typeof second.session_state).toBe('string');
    // The second item's state cannot restore the first item's token (different session caps).
    expect(await rehydrate(first.safe_text, first.session_state)).toBe(EMAIL);
    expect(await rehydrate(first.safe_text, second.session_state)).not.toBe(EMAIL);
  });

  it('rejects an empty batch, unknown fields and more items than limits.max_batch_size', async () => {
    const small = await buildTestApp({ env: { VEIL_MAX_BATCH_SIZE: '3' } });
    try {
      const over = await post(small.app, '/v1/batch/transform', { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }] });
      expect(over.status).toBe(400);
      expect(over.body.code).toBe('VEIL_VALIDATION_FAILED');
      expect(over.body.error).toMatch(/^items/);
      const overDetect = await post(small.app, '/v1/batch/detect', { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }] });
      expect(overDetect.status).toBe(400);
      expect(overDetect.body.error).toMatch(/^items/);
      expect((await post(small.app, '/v1/batch/transform', { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] })).status).toBe(200);
    } finally {
      await small.close();
    }
    const empty = await post(t.app, '/v1/batch/transform', { items: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/^items/);
    const unknown = await post(t.app, '/v1/batch/transform', { items: [{ text: 'a', input: 'b' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('VEIL_VALIDATION_FAILED');
  });

  it('replays an idempotent batch with the same body and results', async () => {
    const payload = { items: [{ text: `mail ${EMAIL}` }, { text: `mail ${OTHER}` }], session_mode: 'shared' };
    const send = () => t.app.inject({ method: 'POST', url: '/v1/batch/transform', payload, headers: { 'content-type': 'application/json', 'idempotency-key': 'batch-7' } });
    const first = await send();
    const again = await send();
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
  });
});

describe('POST /v1/batch/detect', () => {
  it('detects per item, applies include_values, and isolates a failing item', async () => {
    const items = [{ text: `mail ${EMAIL}` }, { text: 'nothing here', language: 'en' }, { text: EMAIL, policy: 'nope' }];
    const withValues = await post(t.app, '/v1/batch/detect', { items });
    expect(withValues.status, JSON.stringify(withValues.body)).toBe(200);
    const [first, second, failed] = withValues.body.results;
    expect(first.index).toBe(0);
    expect(first.entities[0].type).toBe('email');
    expect(first.entities[0].value).toBe(EMAIL); // dev auth: include_values_default applies
    expect(first.entities[0].span).toEqual({ start: 5, end: 5 + EMAIL.length });
    expect(first.warnings).toBeDefined();
    expect(second.entities).toEqual([]);
    expect(failed.entities).toEqual([]);
    expect(failed.code).toBe('VEIL_VALIDATION_FAILED');
    expect(failed.error).not.toContain(EMAIL);
    expect(withValues.body.stats).toMatchObject({ total_items: 3, total_entities: 1 });

    const suppressed = await post(t.app, '/v1/batch/detect', { items, include_values: false });
    expect(suppressed.body.results[0].entities[0].value).toBe('');
    expect(JSON.stringify(suppressed.body)).not.toContain(EMAIL);
    expect(t.logs.text()).not.toContain(EMAIL);
  });
});
