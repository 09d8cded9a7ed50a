// The phone-format e2e suites' shared part (phone-16, phone-17): one real `veil serve` per suite,
// and the two checks every case list gets: each number detected whole as a phone by
// POST /v1/detect, and tokenized by /v1/transform with no digit run left in the safe text,
// restored as written, with no value in the server's logs.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { logsWith, startVeil, type ServerProcess } from './server.js';

export interface PhoneCase {
  readonly text: string;
  /** The phone as written in `text`. */
  readonly value: string;
}

export interface DetectedEntity {
  readonly type: string;
  readonly span: { readonly start: number; readonly end: number };
  readonly confidence: number;
}

/** A token's random cap may hold digits by chance ("{{phone:ph_001:415340e4…}}"): taken out before the check. */
const TOKEN = /\{\{[a-z_]+:[a-z]+_\d+:[0-9a-f]+\}\}/g;

export interface PhoneSuite {
  /** POSTs `body` as JSON to the suite's server and returns the 200 answer. */
  readonly post: (path: string, body: unknown) => Promise<Record<string, unknown>>;
}

export interface PhoneSuiteOptions {
  /**
   * What must not be in the server's logs for a case (default: the last six digits of its value).
   * Session 19: a 2-3 digit extension's digits are in any log by chance (ports, timings), so such
   * suites look for the value as written or the sentence instead.
   */
  readonly logNeedle?: (phoneCase: PhoneCase) => string;
}

const lastDigits = ({ value }: PhoneCase): string => value.replace(/\D/g, '').slice(-6);

/** Call inside a `describe`: starts the server around it and adds the two checks of `cases`. */
export function phoneCaseSuite(cases: readonly PhoneCase[], options: PhoneSuiteOptions = {}): PhoneSuite {
  const logNeedle = options.logNeedle ?? lastDigits;
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startVeil();
  });
  afterAll(async () => {
    await server.stop();
  });

  async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  it('detects each number whole as a phone', async () => {
    for (const { text, value } of cases) {
      const body = await post('/v1/detect', { input: text, include_values: false });
      const spans = (body.entities as DetectedEntity[])
        .filter((entity) => entity.type === 'phone' && entity.confidence >= 0.5)
        .map((entity) => text.slice(entity.span.start, entity.span.end));
      expect(spans, text).toEqual([value]);
    }
  });

  it('tokenizes each number with no digit run left, restores it as written and logs no value', async () => {
    for (const { text, value } of cases) {
      const transformed = await post('/v1/transform', { input: text });
      const safe = transformed.safe_text as string;
      const restored = await post('/v1/rehydrate', { output: safe, session_state: transformed.session_state });
      expect(restored.restored_text, text).toBe(text);
      expect(safe.replace(TOKEN, '{{token}}'), text).not.toContain(value.replace(/\D/g, '').slice(-4));
    }
    const logs = await logsWith(server, /v1\/rehydrate/);
    for (const phoneCase of cases) expect(logs.includes(logNeedle(phoneCase))).toBe(false);
  });

  return { post };
}
