// Phones people write that no numbering plan accepts, and bare digit runs a sentence cue makes a
// phone (session 17, wave16/phone), against the real `veil serve` process: each is detected whole
// by POST /v1/detect, tokenized by /v1/transform with no digits left in the safe text, restored
// as written and never logged; the same digits without the cue stay text, and the weak NINO
// reading of "at" that lost its digits to a phone leaves no piece even at a low threshold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logsWith, startVeil, type ServerProcess } from './support/server.js';

const CASES: readonly { readonly text: string; readonly value: string }[] = [
  { text: 'call +54 9 3859 7059 tomorrow', value: '+54 9 3859 7059' },
  { text: 'My phone number is +261 0739258145, call after 5.', value: '+261 0739258145' },
  { text: 'Phone: 9868791763413', value: '9868791763413' },
  { text: 'Write down +54 9 3514 2310 for Tom Reyes.', value: '+54 9 3514 2310' },
  { text: 'Ask Mei Tanaka on 33 50 57 before Friday.', value: '33 50 57' },
  { text: 'Ask Lena Fischer on 6347461576 before Friday.', value: '6347461576' },
  { text: 'WhatsApp me on 6364520852.', value: '6364520852' },
  { text: 'The desk is 6364520852 ext 12.', value: '6364520852 ext 12' },
];

const NOT_PHONES: readonly string[] = [
  'Order 9868791763413 shipped.',
  'Revenue grew +12 345 678 this year.',
  'Ask Tom on 12 03 24 about it.',
  'Write down 7776637064 for Raj.',
  'Ask Jonas on 2-616-41299-3 before Friday.',
];

/** A token's random cap may hold digits by chance ("{{phone:ph_001:415340e4…}}"): taken out before the check. */
const TOKEN = /\{\{[a-z_]+:[a-z]+_\d+:[0-9a-f]+\}\}/g;

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

type Entity = { type: string; span: { start: number; end: number }; confidence: number };

describe('session-17 phone formats against the real server', () => {
  it('detects each number whole as a phone', async () => {
    for (const { text, value } of CASES) {
      const body = await post('/v1/detect', { input: text, include_values: false });
      const spans = (body.entities as Entity[])
        .filter((entity) => entity.type === 'phone' && entity.confidence >= 0.5)
        .map((entity) => text.slice(entity.span.start, entity.span.end));
      expect(spans, text).toEqual([value]);
    }
  });

  it('tokenizes each number with no digit run left, restores it as written and logs no value', async () => {
    for (const { text, value } of CASES) {
      const transformed = await post('/v1/transform', { input: text });
      const safe = transformed.safe_text as string;
      const restored = await post('/v1/rehydrate', { output: safe, session_state: transformed.session_state });
      expect(restored.restored_text, text).toBe(text);
      expect(safe.replace(TOKEN, '{{token}}'), text).not.toContain(value.replace(/\D/g, '').slice(-4));
    }
    const logs = await logsWith(server, /v1\/rehydrate/);
    for (const { value } of CASES) expect(logs.includes(value.replace(/\D/g, '').slice(-6))).toBe(false);
  });

  it('leaves the same digits without a cue, dates and ids alone', async () => {
    for (const text of NOT_PHONES) {
      const body = await post('/v1/detect', { input: text, include_values: false });
      expect((body.entities as Entity[]).filter((entity) => entity.type === 'phone' && entity.confidence >= 0.5), text).toEqual([]);
    }
  });

  it('leaves no piece of a weak NINO reading that lost its digits to a phone, at a low threshold', async () => {
    const text = 'You can reach Raj Patel at 85 3131-2421.';
    const body = await post('/v1/detect', { input: text, include_values: false, threshold: 0.3 });
    const found = (body.entities as Entity[]).map((entity) => `${entity.type}:${text.slice(entity.span.start, entity.span.end)}`);
    expect(found).toEqual(['phone:85 3131-2421']);
  });
});
