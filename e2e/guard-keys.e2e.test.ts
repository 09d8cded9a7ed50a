// The output guard's search keys kept per opened session state (server/src/domain/guard/session-forms.ts),
// against the real `veil serve` process: the same blob rehydrated again and again gives the same
// answer, each time masking the session's values the model wrote raw in other spellings (a phone
// without its country code, an e-mail spelled out); after the phone is revoked the next rehydrate
// of that blob (its keys cached before the revocation) restores [DELETED] and still masks the
// raw spelling; and a blob of another tenant-less session with the same values does the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, settledLogs, startVeil, type ServerProcess } from './support/server.js';

const SECRET = '5d'.repeat(32);
const PHONE = '+1 415 555 0142';
const NATIONAL = '(415) 555-0142';
const EMAIL = 'jane.keys@corp.example';
const SPELLED = 'jane.keys at corp dot example';
const WITNESS = 'witness.keys@example.org';

async function session(server: ServerProcess): Promise<{ safe: string; state: string }> {
  const transformed = await postJson(`${server.url}/v1/transform`, { input: `call ${PHONE}, mail ${EMAIL}; contact ${WITNESS}` });
  expect(transformed.status, transformed.text).toBe(200);
  return { safe: transformed.body.safe_text as string, state: transformed.body.session_state as string };
}

async function rehydrate(server: ServerProcess, blob: { safe: string; state: string }): Promise<{ text: string; triggered: boolean }> {
  const output = `${blob.safe}\nOr dial ${NATIONAL} and write to ${SPELLED}.`;
  const answer = await postJson(`${server.url}/v1/rehydrate`, { output, session_state: blob.state });
  expect(answer.status, answer.text).toBe(200);
  return { text: answer.body.restored_text as string, triggered: (answer.body.output_guard as { triggered: boolean }).triggered };
}

describe('output guard keys per session state', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startVeil({ env: { VEIL_SESSION_SECRET: SECRET } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('masks the raw spellings on every rehydrate of one blob, with the same answer', async () => {
    const blob = await session(server);
    const first = await rehydrate(server, blob);
    expect(first.triggered).toBe(true);
    expect(first.text).toContain(WITNESS);
    expect(first.text).not.toContain(NATIONAL);
    expect(first.text).not.toContain(SPELLED);
    for (let round = 0; round < 4; round++) expect(await rehydrate(server, blob)).toEqual(first);
  });

  it('erasure wins over kept keys: after the revocation the blob restores [DELETED] and still masks the raw number', async () => {
    const blob = await session(server);
    const before = await rehydrate(server, blob);
    expect(before.text).toContain(PHONE);
    const done = await postJson(`${server.url}/v1/revoke`, { entity_type: 'phone', value: PHONE });
    expect(done.status, done.text).toBe(200);
    for (const each of [blob, await session(server)]) {
      for (let round = 0; round < 2; round++) {
        const after = await rehydrate(server, each);
        expect(after.text).toContain('[DELETED]');
        expect(after.text).not.toContain(PHONE);
        expect(after.text).not.toContain(NATIONAL);
        expect(after.text).not.toContain(SPELLED);
        expect(after.text).toContain(WITNESS);
      }
    }
  });

  it('logged none of the values', async () => {
    const logs = await settledLogs(server);
    for (const value of [PHONE, NATIONAL, EMAIL, SPELLED]) expect(logs, value).not.toContain(value);
  });
});
