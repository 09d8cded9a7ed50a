// Red-team finding (session 10): the session checks of a proxied stream (a value revoked while
// the stream is open restores as [DELETED]) look for the session's tokens in
// ChunkRestorer.pendingWith(chunk) before the chunk is restored. That text kept each stream's
// held-back part apart from the chunk's new text, so a token split between two chunks (the usual
// case) was never whole in it: no check ran, and a value revoked meanwhile was restored in full.
// Invariant now: every token a rewrite restores is found in the text checked before it.
import { DEFAULT_POLICY } from '@veil/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { StreamRehydrator, type RestoreFunction } from '../stream/index.js';
import { renderToken } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { ChunkRestorer, jsonStringRestore } from './restore.js';

const ENTRY: TokenEntry = { id: 'e_001', type: 'email', cap: '0123456789ab', value: 'jane@example.com', mode: 'full' };
const TOKEN = renderToken(ENTRY);
const policy = new CompiledPolicy(DEFAULT_POLICY);
const entries = indexEntries([ENTRY]);
const restore: RestoreFunction = (output) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
const json = jsonStringRestore(restore, findTokensLenient);

/** Tokens of the session in a checked text (what LiveSessionCheck looks up). */
function sessionTokens(text: string): number {
  return findTokensLenient(text).filter((candidate) => candidate.token?.id === ENTRY.id).length;
}

function cut(text: string, sizes: readonly number[]): string[] {
  const pieces: string[] = [];
  let index = 0;
  for (let k = 0; index < text.length; k += 1) {
    const size = Math.max(1, sizes[k % sizes.length]!);
    pieces.push(text.slice(index, index + size));
    index += size;
  }
  return pieces;
}

describe('pendingWith holds every token the next rewrite restores', () => {
  it('content, reasoning and tool-call arguments cut anywhere', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }), fc.constantFrom('content', 'reasoning_content', 'arguments'), (sizes, member) => {
        const text = member === 'arguments' ? `{"to":"${TOKEN}","cc":"${TOKEN}"}` : `Hi ${TOKEN}, and ${TOKEN} again.`;
        const restorer = new ChunkRestorer((kind) => new StreamRehydrator(kind === 'text' ? restore : json));
        const chunks = cut(text, sizes).map((piece, index) => ({
          id: 'c',
          choices: [{ index: 0, delta: member === 'arguments' ? { tool_calls: [{ index: 0, ...(index === 0 ? { id: 't', type: 'function' } : {}), function: { arguments: piece } }] } : { [member]: piece }, finish_reason: null }],
        }));
        chunks.push({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' } as never] });
        for (const one of chunks) {
          const before = restorer.tokensResolved;
          const checked = sessionTokens(restorer.pendingWith(one));
          restorer.rewrite(one);
          expect(restorer.tokensResolved - before).toBeLessThanOrEqual(checked);
        }
        expect(restorer.tokensResolved).toBe(2);
      }),
      { numRuns: 200 },
    );
  });
});
