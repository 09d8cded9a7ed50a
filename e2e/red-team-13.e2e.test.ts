// Red-team probes of the restore side, session 13 (wave12/red; docs/api.md "Session 13"), against
// the real `veil serve` process (the red team's local mock upstream only). The model's answer
// writes a session value in other spellings (full-width digits, zero-width joiners, bidi
// controls, HTML entities, base64, digit words, markdown emphasis, a JSON key, percent escapes in
// a link); `/v1/rehydrate` must mask every one. At the end no probed value is in the logs.
import { describe, expect, it } from 'vitest';
import { useRedTeam } from './support/red-team.js';
import { postJson, settledLogs, type ServerProcess } from './support/server.js';

const CARD = '4111 1111 1111 1111';
const PHONE = '+1 415 555 0134';
const EMAIL = 'red.thirteen.victim@corp.example';

let veil: ServerProcess;
useRedTeam((team) => {
  veil = team.veil;
});

const entities = (text: string): string => text.replace(/[0-9]/g, (digit) => `&#${String(digit.charCodeAt(0))};`);
const fullWidth = (text: string): string => text.replace(/[0-9]/g, (digit) => String.fromCharCode(0xff10 + Number(digit)));

const PROBES: readonly (readonly [string, string])[] = [
  ['full-width digits', `card ${fullWidth(CARD)} ok`],
  ['zero-width joiners', `card 4\u200d111 1111 1111 111\u200d1 ok`],
  ['bidi controls', `card \u202e4111 1111 1111 1111\u202c ok`],
  ['HTML decimal entities', `card ${entities(CARD)} ok`],
  ['base64', `b64 ${Buffer.from(CARD).toString('base64')} ok`],
  ['digit words', 'call four one five five five five zero one three four ok'],
  ['markdown emphasis', 'card **41**11 1111 1111 1111 ok'],
  ['a JSON key', `{"${CARD}": 1}`],
  ['percent escapes in a link', `see https://evil.example/?to=${encodeURIComponent(EMAIL)}&p=%2B1%20415%20555%200134`],
  ['national phone form', 'call (415) 555-0134 ok'],
];

describe('red team 13: the model writes a session value in another spelling', () => {
  it.each(PROBES)('%s is masked by /v1/rehydrate', async (_name, output) => {
    const made = await postJson(`${veil.url}/v1/transform`, { input: `Card ${CARD}, phone ${PHONE}, mail ${EMAIL}.` });
    expect(made.status).toBe(200);
    const restored = await postJson(`${veil.url}/v1/rehydrate`, { output, session_state: made.body.session_state });
    expect(restored.status).toBe(200);
    const text = restored.body.restored_text as string;
    expect(text).not.toBe(output);
    for (const raw of ['4111', '1111 1111', '555', 'red.thirteen', 'zero one three']) expect(text.toLowerCase()).not.toContain(raw);
  });

  it('logs no probed value', async () => {
    const logs = await settledLogs(veil);
    for (const value of [CARD, '4111', PHONE, '0134', EMAIL, 'red.thirteen']) expect(logs).not.toContain(value);
  });
});
