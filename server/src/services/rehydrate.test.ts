// output_json shares the output guard's token scan with the restore (issue 20 item 2): the same
// bytes out as guarding every string and then restoring each with a scan of its own, over random
// documents of tokens (exact and in the spellings token repair accepts), raw session values and
// ordinary text, under every guard action.
import { describe, expect, it } from 'vitest';
import { compileCustomPatterns } from '../domain/detect/index.js';
import { guardJsonValue } from '../domain/guard/index.js';
import { KeyRing } from '../domain/seal/index.js';
import { restoreJsonValue } from '../domain/structured/index.js';
import type { OutputGuardAction } from '../domain/guard/index.js';
import { loadPolicyRegistry } from './policies.js';
import { createRestorer, openForRehydrate, outputGuardFor, restoreJsonOpened, type RehydrateEnvironment, type RehydrateRequest } from './rehydrate.js';
import { runJsonTransform } from './structured.js';
import type { TransformEnvironment } from './transform.js';

const keyRing = new KeyRing('k1', [{ kid: 'k1', key: Buffer.alloc(32, 7) }]);
const registry = loadPolicyRegistry({ nowUnix: 0 });
const NOW = 1_750_000_000_000;
const transformEnv: TransformEnvironment = {
  keyRing,
  policy: (name) => registry.get(name),
  compilePatterns: (raw) => compileCustomPatterns(raw, 'custom_patterns'),
  defaultLanguage: 'en',
  defaultRegion: 'US',
  ttlSeconds: 3600,
  contextStrategy: 'full',
  maxContextTokens: 4096,
  nowMs: NOW,
};

const RAW = ['ada@example.com', '4111 1111 1111 1111', 'bob.stone@corp.example', '+1 415 555 0134'];
const outcome = runJsonTransform(transformEnv, { context: {}, tenant: null, inputJson: { a: RAW[0], b: RAW[1], c: RAW[2], d: RAW[3] } });
const tokens = Object.values(outcome.response.safe_json as Record<string, string>);

/** Deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A token in a spelling token repair accepts, broken, or not a token at all. */
function spelling(token: string, next: () => number): string {
  switch (Math.floor(next() * 8)) {
    case 0:
      return token.slice(1); // a lost opening brace
    case 1:
      return token.slice(0, -1); // a lost closing brace
    case 2:
      return token.replace('{{', '{{ ').replace('}}', ' }}');
    case 3:
      return token.toUpperCase();
    case 4:
      return token.replace(/:[0-9a-f]+\}\}$/, ':000000000000}}'); // a wrong cap
    case 5:
      return `{${token}}`;
    default:
      return token;
  }
}

const WORDS = ['see', 'the', 'card', 'mail', '{', '}', '{{', '}}', 'Call', 'at', '|', '\\', 'https://x.example/?q=', '**', '4111'];

function text(next: () => number): string {
  const parts: string[] = [];
  const count = Math.floor(next() * 7);
  for (let k = 0; k < count; k++) {
    const pick = next();
    if (pick < 0.4) parts.push(spelling(tokens[Math.floor(next() * tokens.length)]!, next));
    else if (pick < 0.55) parts.push(RAW[Math.floor(next() * RAW.length)]!);
    else parts.push(WORDS[Math.floor(next() * WORDS.length)]!);
  }
  return parts.join(next() < 0.5 ? ' ' : '');
}

function document(next: () => number, depth = 0): unknown {
  const pick = next();
  if (depth > 2 || pick < 0.35) return text(next);
  if (pick < 0.45) return Math.floor(next() * 100);
  if (pick < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => document(next, depth + 1));
  const out: Record<string, unknown> = {};
  for (let k = Math.floor(next() * 4); k > 0; k--) out[next() < 0.3 ? text(next) : `k${k}`] = document(next, depth + 1);
  return out;
}

/** The path before the shared scan: guard every string, then restore each with a scan of its own. */
function twoScans(env: RehydrateEnvironment, request: RehydrateRequest, value: unknown): { json: string; resolved: number; unresolved: number } {
  const session = openForRehydrate(env, request.sessionState, null);
  const guard = outputGuardFor(env, session, request.caller);
  const guarded = guard !== undefined ? guardJsonValue(value, guard) : value;
  const restored = restoreJsonValue(guarded, (one) => createRestorer(env, session, request)(one));
  return { json: JSON.stringify(restored.value), resolved: restored.tokensResolved, unresolved: restored.tokensUnresolved.length };
}

describe('restoreJsonOpened: one token scan of each string', () => {
  const actions: (OutputGuardAction | undefined)[] = [undefined, 'allow', 'warn', 'mask'];
  for (const action of actions) {
    it(`gives the bytes of guard-then-scan-again over random documents (guard ${action ?? 'off'})`, () => {
      const env: RehydrateEnvironment = {
        keyRing,
        policy: (name) => registry.get(name),
        nowMs: NOW,
        ...(action !== undefined ? { outputProtection: { mode: 'strict', action, exemptTypes: [], defaultRegion: 'US' } } : {}),
      };
      const request: RehydrateRequest = { output: '', sessionState: outcome.sessionState, channel: 'user_output', caller: {}, tenant: null, traceId: 't' };
      const next = random(action === undefined ? 1 : action.length);
      let restoredSome = 0;
      for (let round = 0; round < 300; round++) {
        const value = document(next);
        const session = openForRehydrate(env, request.sessionState, null);
        const shared = restoreJsonOpened(env, session, request, value);
        const reference = twoScans(env, request, value);
        expect(JSON.stringify(shared.restored_json)).toBe(reference.json);
        expect(shared.restored_text).toBe(reference.json);
        expect(shared.tokens_resolved).toBe(reference.resolved);
        expect(shared.tokens_unresolved.length).toBe(reference.unresolved);
        if (reference.resolved > 0) restoredSome += 1;
      }
      expect(restoredSome).toBeGreaterThan(50);
    });
  }
});
