// What the sidecar is given and how its answers map back: pieces that tile any text with bounded,
// overlapping windows; names at every cut found once with exact spans; lone surrogates never sent
// (and offsets unchanged); calls packed and bounded in concurrency; the first failure abandons
// the rest. The sidecar here is an in-process stand-in that finds known names in code points and
// refuses ill-formed text as the real one does (the real process runs in e2e/ner.e2e.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NerError, type NerBatchItem, type NerBatchResult, type NerDetectOptions, type NerDetectResult, type NerEntity } from '../clients/ner.js';
import { nerPieces, runNer } from './ner.js';

const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Édouard Manet'];

interface FakeSidecar {
  detect(text: string, options?: NerDetectOptions): Promise<NerDetectResult>;
  detectBatch(items: readonly NerBatchItem[], options?: { signal?: AbortSignal }): Promise<NerBatchResult[]>;
  calls: number;
  texts: string[];
  maxInFlight: number;
}

function find(text: string): NerEntity[] {
  if (/[\ud800-\udfff]/.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) {
    throw new NerError('rejected', 'ner rejected the request (400)', 'the NER sidecar refused the request as invalid (HTTP 400)');
  }
  const entities: NerEntity[] = [];
  for (const name of NAMES) {
    for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
      const start = [...text.slice(0, at)].length;
      entities.push({ type: 'person', start, end: start + [...name].length, confidence: 0.85, label: 'PERSON' });
    }
  }
  return entities.sort((a, b) => a.start - b.start);
}

function fakeSidecar(behaviour: { delayMs?: number; failOnCall?: number } = {}): FakeSidecar & { aborted: number } {
  let inFlight = 0;
  const fake = {
    calls: 0,
    texts: [] as string[],
    maxInFlight: 0,
    aborted: 0,
    async run<T>(texts: string[], signal: AbortSignal | undefined, answer: () => T): Promise<T> {
      fake.calls += 1;
      const call = fake.calls;
      fake.texts.push(...texts);
      inFlight += 1;
      fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs ?? 0));
        if (signal?.aborted === true) {
          fake.aborted += 1;
          throw new NerError('unreachable', 'ner unreachable (AbortError)', 'abandoned');
        }
        if (call === behaviour.failOnCall) throw new NerError('error_status', 'ner answered status 500', 'the NER sidecar answered with an error (HTTP 500)');
        return answer();
      } finally {
        inFlight -= 1;
      }
    },
    detect(text: string, options: NerDetectOptions = {}): Promise<NerDetectResult> {
      return fake.run([text], options.signal, () => ({ entities: find(text), degraded: false, warnings: [] }));
    },
    detectBatch(items: readonly NerBatchItem[], options: { signal?: AbortSignal } = {}): Promise<NerBatchResult[]> {
      return fake.run(
        items.map((item) => item.text),
        options.signal,
        () => items.map((item) => ({ entities: find(item.text), degraded: false })),
      );
    },
  };
  return fake;
}

/** Where each name occurs in `text`, in UTF-16 offsets. */
function expected(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (const name of NAMES) for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) spans.push([at, at + name.length]);
  return spans.sort((a, b) => a[0] - b[0]);
}

const textUnits = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('the', 'report', 'of', 'x', 'a'.repeat(30)) },
  { weight: 3, arbitrary: fc.constantFrom(' ', ' ', '\n', '. ', '\n\n') },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('😀', '\ud800', '\udfff', '\ud83d') },
);
const anyText = fc.array(textUnits, { maxLength: 120 }).map((parts) => parts.join(''));

describe('nerPieces', () => {
  it('keeps a text within the limit whole', () => {
    expect(nerPieces('short text', 100)).toEqual([{ start: 0, end: 10, ownStart: 0, ownEnd: 10 }]);
    expect(nerPieces('', 100)).toEqual([]);
  });

  it('tiles any text with owned ranges inside bounded windows that never split a surrogate pair', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 8, max: 300 }), fc.integer({ min: 0, max: 80 }), (text, limit, overlap) => {
        const pieces = nerPieces(text, limit, overlap);
        let owned = 0;
        const splitsPair = (at: number): boolean => at > 0 && at < text.length && /[\ud800-\udbff]/.test(text[at - 1]!) && /[\udc00-\udfff]/.test(text[at]!);
        for (const piece of pieces) {
          expect(piece.ownStart).toBe(owned);
          expect(piece.ownEnd).toBeGreaterThan(piece.ownStart);
          expect(piece.start).toBeLessThanOrEqual(piece.ownStart);
          expect(piece.end).toBeGreaterThanOrEqual(piece.ownEnd);
          expect(piece.end - piece.start).toBeLessThanOrEqual(limit);
          for (const at of [piece.start, piece.end, piece.ownStart, piece.ownEnd]) expect(splitsPair(at)).toBe(false);
          owned = piece.ownEnd;
        }
        expect(owned).toBe(text.length);
      }),
    );
  });

  it('reads a lone high surrogate before a pair as no pair (CI counterexample)', () => {
    // 8 is a lone high surrogate, 9-10 the pair of an emoji: a window edge at 9 is between two
    // characters, and moving it to 10 would split the emoji.
    const text = 'x\udfffthethe\ud800😀the';
    for (const piece of nerPieces(text, 12, 3)) {
      for (const at of [piece.start, piece.end, piece.ownStart, piece.ownEnd]) {
        expect(/[\ud800-\udbff]/.test(text[at - 1] ?? '') && /[\udc00-\udfff]/.test(text[at] ?? ''), `edge ${at}`).toBe(false);
      }
    }
  });

  it('keeps a window within the limit when its left edge falls inside a surrogate pair', () => {
    const text = `ofAda Lovelace\u{1F600}${'a'.repeat(60)}`;
    for (const piece of nerPieces(text, 60, 20)) {
      expect(piece.end - piece.start).toBeLessThanOrEqual(60);
      expect(piece.start).toBeLessThanOrEqual(piece.ownStart);
    }
  });

    it('cuts after a line break or a sentence before any other space', () => {
    const text = `${'word '.repeat(10)}end.\n${'more words here '.repeat(10)}`;
    const [first] = nerPieces(text, 120, 10);
    expect(text.slice(first!.ownStart, first!.ownEnd).endsWith('end.\n')).toBe(true);
  });
});

describe('runNer', () => {
  it('finds every name exactly once with exact spans, wherever the cuts fall (lone surrogates included)', async () => {
    await fc.assert(
      fc.asyncProperty(anyText, fc.integer({ min: 60, max: 400 }), async (text, pieceChars) => {
        const sidecar = fakeSidecar();
        const { perText } = await runNer(sidecar, [text], { language: 'en', pieceChars, concurrency: 3 });
        expect(perText[0]!.map((detection) => [detection.start, detection.end])).toEqual(expected(text));
        for (const detection of perText[0]!) expect(NAMES).toContain(detection.value);
        for (const sent of sidecar.texts) expect(sent.length).toBeLessThanOrEqual(pieceChars);
      }),
      { numRuns: 200 },
    );
  });

  it('packs many short slots into few batch calls and skips slots without letters', async () => {
    const slots = Array.from({ length: 150 }, (_, index) => (index % 3 === 0 ? `${index}` : `note ${index} for ${NAMES[index % NAMES.length]!}`));
    const sidecar = fakeSidecar();
    const { perText } = await runNer(sidecar, slots, { language: 'en', pieceChars: 10_000, concurrency: 2 });
    expect(sidecar.calls).toBe(2); // 100 slots with letters, at most 64 per call
    expect(sidecar.texts).toHaveLength(100);
    perText.forEach((detections, index) => {
      expect(detections.map((detection) => detection.value)).toEqual(index % 3 === 0 ? [] : [NAMES[index % NAMES.length]]);
    });
  });

  it('keeps at most `concurrency` calls in flight', async () => {
    const text = `${NAMES.join(' and ')}. `.repeat(400);
    const sidecar = fakeSidecar({ delayMs: 5 });
    const { perText } = await runNer(sidecar, [text], { language: 'en', pieceChars: 1000, concurrency: 3 });
    expect(sidecar.calls).toBeGreaterThan(10);
    expect(sidecar.maxInFlight).toBe(3);
    expect(perText[0]).toHaveLength(1600);
  });

  it('fails with the first failure and abandons the calls still running', async () => {
    const text = `${NAMES.join(' and ')}. `.repeat(400);
    const sidecar = fakeSidecar({ delayMs: 5, failOnCall: 2 });
    const failure = await runNer(sidecar, [text], { language: 'en', pieceChars: 1000, concurrency: 4 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(NerError);
    expect((failure as NerError).reason).toBe('error_status');
    expect(sidecar.aborted).toBeGreaterThan(0);
    expect(sidecar.calls).toBeLessThan(10); // no new calls after the failure
  });
});
