// The Vercel AI SDK middleware with the real `ai` package against the real `veil serve`: the model
// (the SDK's own MockLanguageModelV2, which stands in for a provider) receives only tokens, in
// every prompt slot, and echoes them; generateText and streamText (one character per delta, so
// every token is split everywhere) give the application exactly its original text, and tool
// calls come back with their real values.
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import type { LanguageModelV2CallOptions, LanguageModelV2StreamPart } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVeil, type ServerProcess } from '../../../e2e/support/server.js';
import { veilMiddleware } from '../src/adapters/ai-sdk.js';
import { VeilClient } from '../src/index.js';

const TEXT = 'Write to jane.doe@example.com or call +1 415 555 0134 about card 4111 1111 1111 1111.';
const RAW = ['jane.doe@example.com', '415 555 0134', '4111 1111 1111 1111'];
const TOKEN = /\{\{[a-z_:]+:[a-z]+_\d+:[0-9a-f]+\}\}/g;

let veil: ServerProcess;
let client: VeilClient;

beforeAll(async () => {
  veil = await startVeil();
  client = new VeilClient({ baseUrl: veil.url });
}, 60_000);
afterAll(async () => {
  await veil.stop();
});

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** The last user text the model was given. */
function lastUserText(options: LanguageModelV2CallOptions): string {
  const user = options.prompt.filter((message) => message.role === 'user').at(-1);
  return user?.content.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
}

describe('veilMiddleware (Vercel AI SDK v5)', () => {
  it('tokenizes every prompt slot and restores generated text and tool calls', async () => {
    const seen: LanguageModelV2CallOptions[] = [];
    const model = new MockLanguageModelV2({
      doGenerate: (options) => {
        seen.push(options);
        const echo = lastUserText(options);
        const email = echo.match(TOKEN)?.[0] ?? '';
        return Promise.resolve({
          content: [
            { type: 'text', text: echo },
            { type: 'tool-call', toolCallId: 't1', toolName: 'send', input: JSON.stringify({ to: email, note: `for ${email}` }) },
          ],
          finishReason: 'tool-calls',
          usage,
          warnings: [],
        });
      },
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: veilMiddleware(client) }),
      system: 'Customer: jane.doe@example.com',
      messages: [
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't0', toolName: 'lookup', input: { card: '4111 1111 1111 1111' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't0', toolName: 'lookup', output: { type: 'text', value: 'Owner phone +1 415 555 0134' } }] },
        { role: 'user', content: TEXT },
      ],
    });
    expect(result.text).toBe(TEXT);
    expect(result.toolCalls[0]!.input).toEqual({ to: 'jane.doe@example.com', note: 'for jane.doe@example.com' });
    const sent = JSON.stringify(seen[0]!.prompt);
    for (const value of RAW) expect(sent).not.toContain(value);
    // One session: the email has one token in the system prompt and the user message.
    const emails = new Set((sent.match(TOKEN) ?? []).filter((token) => token.startsWith('{{email:')));
    expect(emails.size).toBe(1);
  });

  it('restores a streamed answer split into one-character deltas', async () => {
    let prompt = '';
    const model = new MockLanguageModelV2({
      doStream: (options) => {
        prompt = JSON.stringify(options.prompt);
        const echo = lastUserText(options);
        const chunks: LanguageModelV2StreamPart[] = [
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 'a' },
          ...Array.from(echo, (delta): LanguageModelV2StreamPart => ({ type: 'text-delta', id: 'a', delta })),
          { type: 'text-end', id: 'a' },
          { type: 'finish', finishReason: 'stop', usage },
        ];
        return Promise.resolve({ stream: simulateReadableStream({ chunks }) });
      },
    });
    const result = streamText({ model: wrapLanguageModel({ model, middleware: veilMiddleware(client) }), prompt: TEXT });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.join('')).toBe(TEXT);
    for (const piece of pieces) expect(piece).not.toMatch(/[{}]/);
    for (const value of RAW) expect(prompt).not.toContain(value);
  });
});
