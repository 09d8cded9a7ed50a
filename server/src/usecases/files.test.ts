// The files use case (usecases/files.ts) without HTTP: wired by the composition root (compose.ts
// buildUseCases) from the real dependencies, the real file-parsing pool included, and called
// directly, so extraction, the transform, re-assembly and the file restore are proven to live in
// the use case, not in the route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../../test/support/harness.js';
import type { AuditFacts } from '../audit/facts.js';
import { buildUseCases, type UseCases } from '../compose.js';
import { loadConfig } from '../config/index.js';
import type { AppDeps } from '../deps.js';
import { buildDeps } from '../main.js';
import type { TransformCommand, UseCaseCall } from './transform.js';

const EMAIL = 'jane.doe@example.com';

let deps: AppDeps;
let useCases: UseCases;

beforeAll(async () => {
  deps = await buildDeps(loadConfig({ env: { VEIL_SESSION_SECRET: TEST_SECRET, VEIL_OCR__ENGINE: 'none' } }));
  useCases = buildUseCases(deps);
});
afterAll(async () => {
  await useCases.close();
  await deps.offload.close();
  await deps.stores.close();
});

function call(facts: AuditFacts[] = []): UseCaseCall {
  return { scope: useCases.scopeOf(null), facts: (recorded) => facts.push(recorded) };
}

const command: TransformCommand = { context: { destination: 'external_llm' }, traceId: 'trace-files-use-case' };

describe('FilesUseCase', () => {
  it('extracts a text file, tokenizes it, and re-assembles the answer with the extraction facts and the session; the file restores', async () => {
    const facts: AuditFacts[] = [];
    const text = `Mail ${EMAIL} today.\n`;
    const done = await useCases.files.transformFile(call(facts), command, { bytes: Buffer.from(text), hint: { filename: 'note.txt' } });
    expect(done.format).toBe('text');
    expect(done.size).toBe(Buffer.byteLength(text));
    if (done.body === undefined) throw new Error('expected a serialized answer');
    const answer = JSON.parse(done.body) as { safe_text: string; original_format: string; original_size: number; session_state: string; stats: { extraction_time_ms: number } };
    expect(answer.original_format).toBe('text');
    expect(answer.original_size).toBe(done.size);
    expect(typeof answer.stats.extraction_time_ms).toBe('number');
    expect(answer.safe_text).not.toContain(EMAIL);
    expect(facts.some((recorded) => recorded.session_id !== undefined)).toBe(true);

    const restoreFacts: AuditFacts[] = [];
    const scope = call(restoreFacts);
    const base = await useCases.rehydrate.request(scope, { sessionState: answer.session_state, channel: 'user_output', caller: {}, traceId: 't' }, '');
    const restored = await useCases.files.rehydrateFile(scope, base, { bytes: Buffer.from(answer.safe_text), hint: { filename: 'answer.txt' } });
    expect(Buffer.from(restored.bytes).toString('utf8')).toBe(text);
    expect(restoreFacts).toContainEqual(expect.objectContaining({ entity_count: 1 }));
  });

  it('writes a JSON file back the way it came (indent, final newline)', async () => {
    const source = `{\n    "contact": "${EMAIL}"\n}\n`;
    const done = await useCases.files.transformFile(call(), command, { bytes: Buffer.from(source), hint: { filename: 'contact.json' } });
    expect(done.format).toBe('json');
    if (done.object === undefined) throw new Error('expected an object answer');
    const safeText = done.object.safe_text as string;
    expect(safeText).not.toContain(EMAIL);
    expect(safeText).toMatch(/^\{\n {4}"contact": "\{\{[^"]+\}\}"\n\}\n$/);
    expect(done.object.original_format).toBe('json');
  });

  it('refuses the image flows at once when no OCR engine is configured', async () => {
    expect(useCases.files.ocrEngine).toBe('none');
    expect(() => useCases.files.requireOcr()).toThrow(expect.objectContaining({ code: 'VEIL_OCR_UNAVAILABLE' }));
    await expect(useCases.files.transformImage(call(), command, Buffer.from('not an image'))).rejects.toMatchObject({ code: 'VEIL_OCR_UNAVAILABLE' });
    await expect(useCases.files.redactImage(call(), command, Buffer.from('not an image'))).rejects.toMatchObject({ code: 'VEIL_OCR_UNAVAILABLE' });
  });
});
