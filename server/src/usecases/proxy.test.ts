// The proxy use case (usecases/proxy.ts) without HTTP: wired by the composition root
// (compose.ts buildUseCases) from the real dependencies and called directly against a real local
// fake upstream, so the whole sequence (tokenize, prepare the restore, call, commit, restore
// whole or chunk by chunk) is proven to live in the use case, not in the route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../../test/support/harness.js';
import { startFakeOpenAi, type FakeOpenAi } from '../bench/fake-openai.js';
import type { AuditFacts } from '../audit/facts.js';
import { buildUseCases, type UseCases } from '../compose.js';
import { loadConfig } from '../config/index.js';
import type { AppDeps } from '../deps.js';
import { buildDeps } from '../main.js';
import type { TransformCommand, UseCaseCall } from './transform.js';
import type { UpstreamAccess } from './proxy.js';

const TEXT = 'Email jane.doe@example.com or call +1 415 555 0134, thanks.';
const RAW = ['jane.doe@example.com', '415 555 0134'];

let fake: FakeOpenAi;
let deps: AppDeps;
let useCases: UseCases;

async function wired(env: Record<string, string>): Promise<{ deps: AppDeps; useCases: UseCases }> {
  const built = await buildDeps(loadConfig({ env: { VEIL_SESSION_SECRET: TEST_SECRET, ...env } }));
  return { deps: built, useCases: buildUseCases(built) };
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  ({ deps, useCases } = await wired({ VEIL_PROXY__UPSTREAM_URL: fake.url }));
});
afterAll(async () => {
  await useCases.close();
  await deps.offload.close();
  await deps.stores.close();
  await fake.close();
});

/** A call of the default (untenanted) scope recording its audit facts. */
function call(facts: AuditFacts[]): UseCaseCall {
  return { scope: useCases.scopeOf(null), facts: (recorded) => facts.push(recorded) };
}

const command: TransformCommand = { context: { destination: 'external_llm' }, traceId: 'trace-proxy-use-case' };
const access: UpstreamAccess = { callerCredential: false, signal: () => new AbortController().signal };
const restore = { channel: 'user_output', caller: {} };

describe('ProxyUseCase', () => {
  it('runs a whole chat completion: the upstream sees tokens only, the answer comes back restored with a session handle', async () => {
    const facts: AuditFacts[] = [];
    const prepared = useCases.proxy.prepareChat({ model: 'm', messages: [{ role: 'user', content: TEXT }] });
    const done = await useCases.proxy.chat(call(facts), command, prepared, restore, access);
    if (done.stream) throw new Error('expected a whole answer');
    const sent = fake.requests.at(-1)!.text;
    for (const raw of RAW) expect(sent).not.toContain(raw);
    expect((done.value as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(TEXT);
    expect(done.tokensResolved).toBe(RAW.length);
    expect('session_state' in done.handle).toBe(true);
    expect(done.traceId).toBe('trace-proxy-use-case');
    // The session's facts were recorded by the use case (the route records none of its own here).
    expect(facts.some((recorded) => recorded.session_id !== undefined)).toBe(true);
  });

  it('restores a streamed answer chunk by chunk, tokens split at every position', async () => {
    fake.reply = () => ({ chunkSizes: [1] });
    try {
      const prepared = useCases.proxy.prepareChat({ model: 'm', stream: true, messages: [{ role: 'user', content: TEXT }] });
      const done = await useCases.proxy.chat(call([]), command, prepared, restore, access);
      if (!done.stream) throw new Error('expected a stream');
      const stream = done.restore;
      let text = '';
      const collect = (chunk: Record<string, unknown> | undefined): void => {
        for (const choice of (chunk?.choices as { delta?: { content?: string } }[] | undefined) ?? []) text += choice.delta?.content ?? '';
      };
      let sawDone = false;
      try {
        for await (const data of stream.events) {
          if (data === '[DONE]') {
            sawDone = true;
            break;
          }
          collect(await stream.chunk(data));
        }
        collect(await stream.finish(sawDone));
      } finally {
        await stream.close();
      }
      expect(text).toBe(TEXT);
      expect(stream.tokensResolved).toBe(RAW.length);
    } finally {
      fake.reply = () => ({});
    }
  });

  it('refuses a stream the upstream cut before every choice finished', async () => {
    fake.reply = () => ({ omitDone: true, rawStream: 'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n' });
    try {
      const prepared = useCases.proxy.prepareChat({ model: 'm', stream: true, messages: [{ role: 'user', content: TEXT }] });
      const done = await useCases.proxy.chat(call([]), command, prepared, restore, access);
      if (!done.stream) throw new Error('expected a stream');
      try {
        for await (const data of done.restore.events) await done.restore.chunk(data);
        await expect(done.restore.finish(false)).rejects.toMatchObject({ code: 'VEIL_UPSTREAM_FAILED' });
      } finally {
        await done.restore.close();
      }
    } finally {
      fake.reply = () => ({});
    }
  });

  it('answers 404 VEIL_NOT_FOUND when the proxy is not enabled, before any work', async () => {
    const other = await wired({});
    try {
      expect(() => other.useCases.proxy.upstream()).toThrow(expect.objectContaining({ code: 'VEIL_NOT_FOUND' }));
      const prepared = other.useCases.proxy.prepareChat({ model: 'm', messages: [{ role: 'user', content: TEXT }] });
      const facts: AuditFacts[] = [];
      await expect(other.useCases.proxy.chat({ scope: other.useCases.scopeOf(null), facts: (recorded) => facts.push(recorded) }, command, prepared, restore, access)).rejects.toMatchObject({
        code: 'VEIL_NOT_FOUND',
      });
      // Nothing was tokenized: no session was ever opened.
      expect(facts).toEqual([]);
    } finally {
      await other.useCases.close();
      await other.deps.offload.close();
      await other.deps.stores.close();
    }
  });
});
