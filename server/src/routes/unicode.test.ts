// Values typed in other Unicode forms over HTTP (inject; issue 18 item 5): full-width digits and
// `＠`, Arabic-Indic digits and Unicode dashes are tokenized where they stand (spans in code
// points of the original input), `deny` rules fire on them (type rules and value_pattern
// rules written for the ASCII form), and the output guard masks them in model output.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const FULL_WIDTH_SSN = '０７８－０５－１１２３';
const ARABIC_SSN = '٠٧٨-٠٥-١١٢٣';
const DASHED_SSN = '078\u201305\u20111123';

describe('transform and rehydrate with Unicode forms', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    [`😀 SSN ${FULL_WIDTH_SSN} ok`, FULL_WIDTH_SSN, 'us_ssn'],
    [`😀 SSN ${ARABIC_SSN} ok`, ARABIC_SSN, 'us_ssn'],
    [`😀 SSN ${DASHED_SSN} ok`, DASHED_SSN, 'us_ssn'],
    ['😀 メール ｊａｎｅ＠ｅｘａｍｐｌｅ。ｃｏｍ まで', 'ｊａｎｅ＠ｅｘａｍｐｌｅ。ｃｏｍ', 'email'],
    ['😀 カード ４１１１ １１１１ １１１１ １１１１', '４１１１ １１１１ １１１１ １１１１', 'credit_card'],
  ])('tokenizes %j and restores it exactly', async (input, value, type) => {
    const response = await post(t.app, '/v1/transform', { input });
    expect(response.status).toBe(200);
    const entity = response.body.entities.find((e: { type: string }) => e.type === type);
    expect(entity).toBeDefined();
    // Spans count code points of the original input (the emoji is one).
    expect([...input].slice(entity.span.start, entity.span.end).join('')).toBe(value);
    expect(response.body.safe_text).not.toContain(value);
    const restored = await post(t.app, '/v1/rehydrate', { output: response.body.safe_text, session_state: response.body.session_state });
    // Arabic-Indic digits are right-to-left text: restored inside a bidi isolate (U+2068 ... U+2069).
    expect(restored.body.restored_text.replace(/[\u2068\u2069]/g, '')).toBe(input);
  });

  it('the output guard masks a value the model wrote in full-width digits', async () => {
    const session = await post(t.app, '/v1/transform', { input: 'hello' });
    const body = (await post(t.app, '/v1/rehydrate', { output: `SSN ${FULL_WIDTH_SSN}.`, session_state: session.body.session_state })).body;
    expect(body.restored_text).toBe('SSN [REDACTED:us_ssn].');
  });
});

describe('deny rules on Unicode forms', () => {
  let t: TestApp;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-unicode-'));
    writeFileSync(
      join(dir, 'strict.yaml'),
      [
        'name: strict',
        'version: "1.0.0"',
        'rules:',
        '  - name: deny-test-card',
        '    match: {entity_type: credit_card, value_pattern: "^4111[ -]?1111"}',
        '    action: deny',
        '  - name: deny-ssn',
        '    match: {entity_type: us_ssn}',
        '    action: deny',
        '  - name: rest',
        '    match: {}',
        '    action: tokenize',
        '    restore_mode: full',
      ].join('\n'),
    );
    t = await buildTestApp({ overrides: { policy: { directory: dir, default: 'strict' } } });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([FULL_WIDTH_SSN, ARABIC_SSN, DASHED_SSN])('a type rule refuses %j', async (ssn) => {
    const denied = await post(t.app, '/v1/transform', { input: `SSN ${ssn}` });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('VEIL_POLICY_DENIED');
  });

  it('a value_pattern rule written for ASCII refuses the full-width form', async () => {
    const denied = await post(t.app, '/v1/transform', { input: 'card ４１１１－１１１１－１１１１－１１１１' });
    expect(denied.status).toBe(403);
    expect((await post(t.app, '/v1/transform', { input: 'card 5555-5555-5555-4444' })).status).toBe(200);
  });
});
