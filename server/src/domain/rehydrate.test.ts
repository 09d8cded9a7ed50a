// Threats 1, 5 and 7 (design/threats.md) against the pure restore pass: guessed caps, swapped
// types and second-order expansion never reveal a value; unresolved tokens stay verbatim.
import { DEFAULT_POLICY, parsePolicy } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from './policy/index.js';
import { indexEntries, rehydrateText } from './rehydrate.js';
import { renderToken, TokenAllocator } from './token/index.js';
import { tokenizeText } from './tokenize.js';
import type { TokenEntry } from './types.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);
const allocator = new TokenAllocator();
const email = allocator.allocate('email', 'secret.person@example.com');
const entries: TokenEntry[] = [{ id: email.id, type: 'email', cap: email.cap, value: 'secret.person@example.com', mode: 'full' }];
const map = indexEntries(entries);

function restore(output: string) {
  return rehydrateText({ output, entries: map, policy, language: 'en', caller: {}, channel: 'user_output' });
}

describe('rehydrateText', () => {
  it('restores the real token and leaves others verbatim', () => {
    const token = renderToken({ type: 'email', id: email.id, cap: email.cap });
    const result = restore(`Write to ${token}.`);
    expect(result.restoredText).toBe('Write to secret.person@example.com.');
    expect(result.tokensResolved).toBe(1);
  });

  it('restores nothing for thousands of guessed caps on a known id', () => {
    const guesses: string[] = [];
    for (let index = 0; index < 5000; index += 1) {
      const cap = (index * 2654435761).toString(16).padStart(12, '0').slice(-12);
      if (cap !== email.cap) guesses.push(`{{email:${email.id}:${cap}}}`);
    }
    const result = restore(guesses.join(' '));
    expect(result.tokensResolved).toBe(0);
    expect(result.restoredText).not.toContain('secret.person');
    expect(new Set(result.tokensUnresolved.map((item) => item.reason))).toEqual(new Set(['unknown']));
  });

  it('does not restore a type swap or an id swap with the right cap', () => {
    const result = restore(`{{us_ssn:${email.id}:${email.cap}}} {{email:e_999:${email.cap}}}`);
    expect(result.tokensResolved).toBe(0);
    expect(result.tokensUnresolved.map((item) => item.reason)).toEqual(['unknown', 'unknown']);
  });

  it('never expands a restored value that itself looks like a token', () => {
    const tokenLike = `{{email:${email.id}:${email.cap}}}`;
    const sneaky = allocator.allocate('custom:ref', tokenLike);
    const localMap = indexEntries([...entries, { id: sneaky.id, type: 'custom:ref', cap: sneaky.cap, value: tokenLike, mode: 'full' }]);
    const result = rehydrateText({
      output: renderToken({ type: 'custom:ref', id: sneaky.id, cap: sneaky.cap }),
      entries: localMap,
      policy,
      language: 'en',
      caller: {},
      channel: 'user_output',
    });
    expect(result.restoredText).toBe(tokenLike);
    expect(result.tokensResolved).toBe(1);
  });

  it('reports malformed token attempts without resolving them', () => {
    // A fixed cap with letters, so upper-casing it always changes it.
    const fixed: TokenEntry = { id: 'e_042', type: 'email', cap: 'abcdef012345', value: 'fixed@example.com', mode: 'full' };
    const result = rehydrateText({
      output: '{{email:e_042:ABCDEF012345}}',
      entries: indexEntries([fixed]),
      policy,
      language: 'en',
      caller: {},
      channel: 'user_output',
    });
    expect(result.tokensResolved).toBe(0);
    expect(result.tokensUnresolved[0]?.reason).toBe('malformed');
  });

  it('restores [DELETED] for revoked values through the revocation seam', () => {
    const token = renderToken({ type: 'email', id: email.id, cap: email.cap });
    const result = rehydrateText({ output: token, entries: map, policy, language: 'en', caller: {}, channel: 'user_output', isRevoked: () => true });
    expect(result.restoredText).toBe('[DELETED]');
  });
});

describe('caller-dependent rules at rehydrate', () => {
  const parsed = parsePolicy(
    `name: roles
version: "1"
rules:
  - {name: supervisor, match: {entity_type: email, caller_role: supervisor}, action: tokenize, restore_mode: full}
  - {name: agent-tool, match: {entity_type: email, destination: tool, caller_role: agent}, action: redact}
  - {name: email, match: {entity_type: email}, action: tokenize, restore_mode: masked}
`,
    'roles.yaml',
  );
  const roles = new CompiledPolicy(parsed.policy!);
  const value = 'boss@example.com';
  const detections = [{ type: 'email', start: 5, end: 5 + value.length, value, confidence: 1, detector: 'builtin_regex' as const }];

  it('records the transform destination and re-decides the rules for whoever rehydrates', () => {
    for (const destination of [undefined, 'tool']) {
      const tokenized = tokenizeText({
        text: `mail ${value}`,
        detections,
        policy: roles,
        context: { caller_role: 'supervisor', ...(destination !== undefined ? { destination } : {}) },
        allocator: new TokenAllocator(),
      });
      const entry = tokenized.newEntries[0]!;
      expect(entry.mode).toBe('full');
      expect(entry.destination).toBe(destination);
      const as = (role: string) => rehydrateText({ output: tokenized.safeText, entries: indexEntries(tokenized.newEntries), policy: roles, language: 'en', caller: { role }, channel: 'user_output' }).restoredText;
      expect(as('supervisor')).toBe(`mail ${value}`);
      // The agent gets its own rule: masked, or nothing for a value that went to a tool.
      expect(as('agent')).toBe(destination === 'tool' ? 'mail [REDACTED]' : 'mail ****@*******.***');
    }
  });
});
