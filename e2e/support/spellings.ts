// Shared by the suites that send a value in other spellings to the real server and revoke its
// plain form (e2e/evade.e2e.test.ts, e2e/evade-12.e2e.test.ts to e2e/evade-15.e2e.test.ts,
// e2e/erasure.e2e.test.ts): the shape of a case, a restore through /v1/rehydrate, the check that
// no fragment of the value is left outside the tokens of a safe text, and (describeSpellings) the
// body the evasion rounds share.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, settledLogs, startVeil, type ServerProcess } from './server.js';

/** A value sent in other spellings, each after the same words, and revoked in its plain form. */
export interface SpellingCase {
  readonly name: string;
  readonly type: string;
  /** The words before each spelling. */
  readonly label: string;
  /** The plain value, revoked. */
  readonly plain: string;
  readonly spellings: readonly string[];
  /** Fragments of the value that must not reach the safe text. */
  readonly fragments: readonly string[];
}

/** The restored text of a session's safe text (/v1/rehydrate, status 200). */
export async function restore(server: ServerProcess, session: { safe: string; state: string }): Promise<string> {
  const restored = await postJson(`${server.url}/v1/rehydrate`, { output: session.safe, session_state: session.state });
  expect(restored.status, restored.text).toBe(200);
  return restored.body.restored_text as string;
}

/** Tokens taken out first: a token's random cap may hold a fragment's digits by chance ("{{phone:ph_001:415340e4…"). */
const TOKEN = /\{\{[a-z_]+:[a-z]+_\d+:[0-9a-f]+\}\}/g;

/** No fragment of the value in the safe text outside its tokens. */
export function expectNoFragment(safe: string, fragments: readonly string[], spelling: string): void {
  const outside = safe.replace(TOKEN, '{{token}}');
  for (const fragment of fragments) expect(outside, `${spelling}: ${fragment}`).not.toContain(fragment);
}

/**
 * Revoke the plain value, then every session restores `[DELETED]` in place of its spelling while
 * the witness (a value never revoked) still restores.
 */
export async function expectErased(server: ServerProcess, type: string, plain: string, sessions: readonly { spelling: string; safe: string; state: string }[], witness: string): Promise<void> {
  const done = await postJson(`${server.url}/v1/revoke`, { entity_type: type, value: plain });
  expect(done.status, done.text).toBe(200);
  for (const session of sessions) {
    const restored = await restore(server, session);
    expect(restored, session.spelling).toContain('[DELETED]');
    expect(restored, session.spelling).not.toContain(session.spelling);
    expect(restored).toContain(witness);
  }
}

/** A safe text with its session, for a restore and an erasure check. */
export interface SpellingSession {
  readonly spelling: string;
  readonly safe: string;
  readonly state: string;
}

/**
 * `input` (which holds `spelling`) transformed as text, as a JSON member and as a chat message:
 * each answer is 200 and leaves no fragment outside its tokens, and the text finds a value of
 * `type`. Returns the text and chat sessions (the chat's safe text is its message's content).
 */
export async function transformEveryMode(server: ServerProcess, type: string, input: string, spelling: string, fragments: readonly string[]): Promise<{ text: SpellingSession; chat: SpellingSession }> {
  const text = await postJson(`${server.url}/v1/transform`, { input });
  expect(text.status, text.text).toBe(200);
  expect((text.body.entities as { type: string }[]).map((entity) => entity.type), spelling).toContain(type);
  expectNoFragment(text.body.safe_text as string, fragments, spelling);

  const json = await postJson(`${server.url}/v1/transform`, { input_json: { note: input } });
  expect(json.status, json.text).toBe(200);
  expectNoFragment(JSON.stringify(json.body.safe_json), fragments, spelling);

  const chat = await postJson(`${server.url}/v1/transform`, { input_messages: [{ role: 'user', content: input }] });
  expect(chat.status, chat.text).toBe(200);
  const content = chat.body.safe_messages[0].content as string;
  expectNoFragment(content, fragments, spelling);
  expectNoFragment(chat.body.safe_text as string, fragments, spelling);
  return {
    text: { spelling, safe: text.body.safe_text as string, state: text.body.session_state as string },
    chat: { spelling, safe: content, state: chat.body.session_state as string },
  };
}

/**
 * One case against the real server: each spelling, after the case's label and before a witness
 * value, is tokenized whole as text, JSON and chat (transformEveryMode); with `restoresAsWritten`
 * the text session restores to the input exactly (the spelling as written, not the plain value);
 * then revoking the plain value erases every spelling in every session (expectErased).
 */
export async function expectSpellingCase(server: ServerProcess, spellingCase: SpellingCase, witness: string, options: { restoresAsWritten: boolean }): Promise<void> {
  const { type, label, plain, spellings, fragments } = spellingCase;
  const sessions: SpellingSession[] = [];
  for (const spelling of spellings) {
    const input = `${label} ${spelling} ; contact ${witness}`;
    const { text, chat } = await transformEveryMode(server, type, input, spelling, fragments);
    if (options.restoresAsWritten) expect(await restore(server, text), spelling).toBe(input);
    sessions.push(text, chat);
  }
  await expectErased(server, type, plain, sessions, witness);
}

/** One evasion round's suite (describeSpellings). */
export interface SpellingSuite {
  /** VEIL_SESSION_SECRET of the suite's server. */
  readonly secret: string;
  /** A value that is never revoked: it must still restore next to the erased one. */
  readonly witness: string;
  readonly cases: readonly SpellingCase[];
  /** The round's spellings restore to the text as written (else only their erasure is checked). */
  readonly restoresAsWritten: boolean;
  /** Ordinary text the round's readings must leave as it is (`name` titles the test). */
  readonly untouched: { readonly name: string; readonly input: string };
  /** The round's own tests, inside the same describe, against its server. */
  readonly more?: (server: () => ServerProcess) => void;
}

/**
 * The body of an evasion round against one real `veil serve`: every case through
 * expectSpellingCase, none of the values in any spelling in the server's logs, and the round's
 * ordinary text transformed unchanged.
 */
export function describeSpellings(title: string, suite: SpellingSuite): void {
  describe(title, () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startVeil({ env: { VEIL_SESSION_SECRET: suite.secret } });
    });
    afterAll(async () => {
      await server.stop();
    });

    const done = suite.restoresAsWritten ? 'restored as written, erased with the plain value' : 'erased with the plain value';
    it.each(suite.cases)(`$name: tokenized whole as text, JSON and chat, ${done}`, async (spellingCase) => {
      await expectSpellingCase(server, spellingCase, suite.witness, { restoresAsWritten: suite.restoresAsWritten });
    });

    suite.more?.(() => server);

    it('logged none of the values, in any spelling', async () => {
      const logs = await settledLogs(server);
      for (const { plain, spellings } of suite.cases) for (const value of [plain, ...spellings]) expect(logs, value).not.toContain(value);
    });

    it(suite.untouched.name, async () => {
      const made = await postJson(`${server.url}/v1/transform`, { input: suite.untouched.input });
      expect(made.status, made.text).toBe(200);
      expect(made.body.safe_text).toBe(suite.untouched.input);
    });
  });
}
