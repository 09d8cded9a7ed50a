// The executor (usecases/executor.ts) against a real worker pool: it decides inline or worker by
// size in one place, answers with a typed run that says where the work ran, restores the same
// text either way (revocations included), and a large rehydrate sends the restore worker the
// session its open worker decrypted, not the blob again.
import { afterAll, describe, expect, it } from 'vitest';
import { KeyRing } from '../domain/seal/index.js';
import { textWithEntities } from '../bench/attacks.js';
import { createOffload, PARSE_INLINE_FACTOR, TEXT_INLINE_FACTOR, type Offload } from '../services/offload.js';
import { jsonString } from '../services/json-text.js';
import { builtinPolicyRegistry } from '../services/policies.js';
import type { OffloadTask } from '../workers/offload-worker.js';
import { Executor, type OpenedBlob, type RequestScope, type SessionChecks } from './executor.js';

const THRESHOLD = 2_000;
const NOW_MS = Date.UTC(2026, 0, 1);
const real = createOffload({ threshold: THRESHOLD, defaultRegion: 'US' });
/** The tasks sent to the pool, in order (the real pool runs them). */
const sent: OffloadTask[] = [];
const recording: Offload = {
  ...real,
  threshold: real.threshold,
  offloads: (cost) => real.offloads(cost),
  run: (task) => {
    sent.push(task);
    return real.run(task);
  },
};
const executor = new Executor(recording, {
  transform: { defaultLanguage: 'en', defaultRegion: 'US', ttlSeconds: 3600, contextStrategy: 'full', maxContextTokens: 4096 },
  defaultRegion: 'US',
  digestKey: Buffer.alloc(32, 9),
  jsonLimits: { maxDepth: 64, maxKeys: 10_000, maxValues: 200_000 },
});
const scope: RequestScope = {
  tenant: null,
  keyRing: new KeyRing('k1', [{ kid: 'k1', key: Buffer.alloc(32, 7) }]),
  registry: builtinPolicyRegistry(undefined, NOW_MS / 1000),
  nowMs: NOW_MS,
};
const context = { destination: 'external_llm' };

afterAll(() => real.close());

/** Store checks that admit everything, record what they saw, and report `revoke` as revoked. */
function checks(revoke: (ids: string[]) => string[] = () => []): SessionChecks & { admitted: OpenedBlob[]; digestIds: string[][] } {
  const admitted: OpenedBlob[] = [];
  const digestIds: string[][] = [];
  return {
    admitted,
    digestIds,
    admit: (blob) => {
      admitted.push(blob);
      return Promise.resolve();
    },
    revoked: (_tenant, digests) => {
      const ids = [...new Set(digests().map((item) => item.id))];
      digestIds.push(ids);
      return Promise.resolve(revoke(ids));
    },
  };
}

async function tokenize(text: string) {
  const run = await executor.transformText(scope, { input: text, context, tenant: null, traceId: 't' });
  if (run.where !== 'inline') throw new Error('expected an inline transform');
  return run.outcome;
}

describe('Executor', () => {
  it('runs a small text transform inline and a large one on a worker, typed by where it ran', async () => {
    sent.length = 0;
    const small = await executor.transformText(scope, { input: 'mail ana@example.com', context, tenant: null, traceId: 't' });
    expect(small.where).toBe('inline');
    expect(sent).toHaveLength(0);
    const large = await executor.transformText(scope, { input: `mail ana@example.com ${'x '.repeat(THRESHOLD * TEXT_INLINE_FACTOR)}`, context, tenant: null, traceId: 't' });
    expect(large.where).toBe('worker');
    expect(sent.map((task) => task.op)).toEqual(['transform']);
    if (large.where !== 'worker' || small.where !== 'inline') throw new Error('unreachable');
    expect(large.outcome.facts.entity_count).toBe(1);
    expect(small.outcome.response.entities).toHaveLength(1);
  });

  it('runs a text longer than the threshold inline when its cost is within the budget, and the same length dense with values on a worker', async () => {
    sent.length = 0;
    // 1.5 thresholds of prose with a value every ~180 characters (the 100 KB benchmark's text, which is 1.56 of the default threshold).
    const sparse = textWithEntities(THRESHOLD * 1.5, 180);
    const inline = await executor.transformText(scope, { input: sparse, context, tenant: null, traceId: 't' });
    expect(inline.where).toBe('inline');
    expect(sent).toHaveLength(0);
    if (inline.where !== 'inline') throw new Error('unreachable');
    expect(inline.outcome.response.entities.length).toBeGreaterThan(10);
    // The same length with a value every ~30 characters leaves the loop.
    const dense = await executor.transformText(scope, { input: textWithEntities(THRESHOLD * 1.5, 30), context, tenant: null, traceId: 't' });
    expect(dense.where).toBe('worker');
    expect(sent.map((task) => task.op)).toEqual(['transform']);
  });

  it('sends a text shorter than the threshold to a worker when it is dense with values (textCost)', async () => {
    sent.length = 0;
    const phones = Array.from({ length: 100 }, (_, index) => `+1 415 555 ${String(index).padStart(4, '0')}`).join(', ');
    expect(phones.length).toBeLessThan(THRESHOLD);
    const dense = await executor.transformText(scope, { input: phones, context, tenant: null, traceId: 't' });
    expect(dense.where).toBe('worker');
    expect(sent.map((task) => task.op)).toEqual(['transform']);
    // Prose of nearly the threshold's length stays here.
    const prose = await executor.transformText(scope, { input: 'the plan moved to tuesday and everyone agreed '.repeat(40), context, tenant: null, traceId: 't' });
    expect(prose.where).toBe('inline');
    expect(sent).toHaveLength(1);
    // The same weight for a JSON document's strings.
    const document = await executor.transformStructured(scope, { kind: 'json', request: { inputJson: { calls: phones }, context, tenant: null, traceId: 't' } });
    expect(document.where).toBe('worker');
    const many = await executor.transformStructured(scope, { kind: 'json', request: { inputJson: { calls: phones.split(', ') }, context, tenant: null, traceId: 't' } });
    expect(many.where).toBe('worker');
  });

  it('sends a short text to a worker when the caller patterns make it long to scan', async () => {
    sent.length = 0;
    const run = await executor.transformText(scope, {
      input: 'y'.repeat(1500),
      customPatterns: Array.from({ length: 16 }, (_, index) => ({ entity_type: `wide${index}`, pattern: '[a-z]{900}' })),
      context,
      tenant: null,
      traceId: 't',
    });
    expect(run.where).toBe('worker');
  });

  it('restores the same text inline and on workers, revoked values as [DELETED]', async () => {
    const outcome = await tokenize('write to ana@example.com or call +1 415 555 0100');
    const safe = outcome.response.safe_text;
    const base = { output: safe, sessionState: outcome.sessionState, channel: 'user_output', caller: {}, tenant: null, traceId: 't' };
    const inline = await executor.rehydrate(scope, base, checks(), { cost: safe.length });
    const worker = await executor.rehydrate(scope, base, checks(), { cost: THRESHOLD + 1 });
    expect(inline.where).toBe('inline');
    expect(worker.where).toBe('worker');
    if (inline.where !== 'inline' || worker.where !== 'worker') throw new Error('unreachable');
    expect(inline.response.restored_text).toBe('write to ana@example.com or call +1 415 555 0100');
    expect((JSON.parse(jsonString(worker.result.body)) as { restored_text: string }).restored_text).toBe(inline.response.restored_text);

    // Revoke the first entry: both paths check the same digests and restore it as [DELETED].
    const revokeFirst = (ids: string[]) => ids.slice(0, 1);
    const inlineChecks = checks(revokeFirst);
    const workerChecks = checks(revokeFirst);
    const inlineRevoked = await executor.rehydrate(scope, base, inlineChecks, { cost: 1 });
    const workerRevoked = await executor.rehydrate(scope, base, workerChecks, { cost: THRESHOLD + 1 });
    expect(workerChecks.digestIds).toEqual(inlineChecks.digestIds);
    expect(workerChecks.admitted.map((blob) => blob.sid)).toEqual(inlineChecks.admitted.map((blob) => blob.sid));
    if (inlineRevoked.where !== 'inline' || workerRevoked.where !== 'worker') throw new Error('unreachable');
    expect(inlineRevoked.response.restored_text).toContain('[DELETED]');
    expect((JSON.parse(jsonString(workerRevoked.result.body)) as { restored_text: string }).restored_text).toBe(inlineRevoked.response.restored_text);
  });

  it('decrypts a large blob once: the restore worker gets the opened session, not the blob', async () => {
    const outcome = await tokenize('write to ana@example.com');
    const base = { output: outcome.response.safe_text, sessionState: outcome.sessionState, channel: 'user_output', caller: {}, tenant: null, traceId: 't' };
    sent.length = 0;
    await executor.rehydrate(scope, base, checks(), { cost: THRESHOLD + 1 });
    expect(sent.map((task) => task.op)).toEqual(['rehydrate-open', 'rehydrate']);
    const restore = sent[1]!;
    if (restore.op !== 'rehydrate') throw new Error('unreachable');
    expect(restore.request.sessionState).toBe('');
    expect(restore.session?.entries).toHaveLength(1);
  });

  it('refuses before restoring when the store checks refuse', async () => {
    const outcome = await tokenize('write to ana@example.com');
    const base = { output: outcome.response.safe_text, sessionState: outcome.sessionState, channel: 'user_output', caller: {}, tenant: null, traceId: 't' };
    const refusing: SessionChecks = { admit: () => Promise.reject(new Error('denied')), revoked: () => Promise.resolve([]) };
    for (const cost of [1, THRESHOLD + 1]) {
      sent.length = 0;
      await expect(executor.rehydrate(scope, base, refusing, { cost })).rejects.toThrow('denied');
      expect(sent.map((task) => task.op)).not.toContain('rehydrate');
    }
  });

  it('decides where a JSON request body is parsed (the parser and admission ask it): up to PARSE_INLINE_FACTOR thresholds decoded here, a larger one parsed on a worker', async () => {
    sent.length = 0;
    let asked = 0;
    const task = () => {
      asked += 1;
      return { defer: ['input_json' as const], fingerprintPrefix: 'POST\n/v1/transform\n' };
    };
    const small = executor.parseBody(Buffer.from('{"input":"hi"}'), task);
    expect(small).toEqual({ where: 'inline', text: '{"input":"hi"}' });
    // Nothing of the worker's task is computed for a body that stays here.
    expect(asked).toBe(0);
    expect(sent).toHaveLength(0);
    // Above the threshold, within PARSE_INLINE_FACTOR of it: parsed here (a worker round trip costs more than the parse).
    const middle = Buffer.from(JSON.stringify({ input: 'x'.repeat(THRESHOLD * PARSE_INLINE_FACTOR - 12) }));
    expect(middle.length).toBe(THRESHOLD * PARSE_INLINE_FACTOR);
    expect(executor.offloads(middle.length)).toBe(true);
    expect(executor.parseBody(middle, task).where).toBe('inline');
    expect(asked).toBe(0);
    expect(sent).toHaveLength(0);
    const body = Buffer.from(JSON.stringify({ input: 'x'.repeat(THRESHOLD * PARSE_INLINE_FACTOR), input_json: { a: 1 } }));
    expect(executor.offloads(body.length)).toBe(true);
    const large = executor.parseBody(body, task);
    expect(asked).toBe(1);
    expect(sent.map((sentTask) => sentTask.op)).toEqual(['parse']);
    if (large.where !== 'worker') throw new Error('expected a worker parse');
    const parsed = await large.parsed;
    expect(parsed.deferred).toEqual(['input_json']);
    expect((parsed.value as { input: string }).input).toHaveLength(THRESHOLD * PARSE_INLINE_FACTOR);
    expect(parsed.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a small body that is not UTF-8 before any parse', () => {
    expect(() => executor.parseBody(Buffer.from([0x7b, 0xff, 0x7d]), () => ({ defer: [], fingerprintPrefix: '' }))).toThrow(expect.objectContaining({ code: 'VEIL_VALIDATION_FAILED' }));
  });
});
