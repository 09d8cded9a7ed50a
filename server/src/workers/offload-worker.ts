// Worker-thread entry for work too large for the event loop: JSON parsing of large bodies,
// detection, and whole text transforms and rehydrates. The thread lowers its own scheduling
// priority (on Linux setpriority(0) applies to the calling thread only), so when it shares a
// core with the event loop the event loop wins and small requests keep their latency.
// Results cross back as plain data; errors as {code, message} so VeilError survives the hop.
import { createHash } from 'node:crypto';
import { setPriority } from 'node:os';
import { isVeilError, type Policy } from '@veil/common';
import sjson from 'secure-json-parse';
import { compileCustomPatterns, detectAll, type CompiledPattern } from '../domain/detect/index.js';
import { checkJsonDepth } from '../domain/json-depth.js';
import { KeyRing } from '../domain/seal/index.js';
import type { CustomPattern, Detection } from '../domain/types.js';
import { compilePolicy, PolicyRegistry } from '../services/policies.js';
import { runRehydrate, type RehydrateRequest } from '../services/rehydrate.js';
import { runTextTransform, type ContextStrategy, type TextTransformRequest } from '../services/transform.js';
import type { RestoreTemplates } from '../domain/restore/index.js';

try {
  setPriority(19);
} catch {
  // Not permitted or not supported: run at normal priority.
}

export interface RingMaterial {
  readonly currentKid: string;
  readonly keys: readonly { kid: string; key: Uint8Array }[];
}

export interface PolicySnapshot {
  /** Identity of the registry the policies came from; the compiled set is cached by it. */
  readonly key: string;
  readonly defaultName: string;
  readonly policies: readonly Policy[];
}

export type OffloadTask =
  | { readonly op: 'parse'; readonly body: string }
  | { readonly op: 'detect'; readonly text: string; readonly language?: string | undefined; readonly patterns: readonly CustomPattern[] }
  | {
      readonly op: 'transform';
      readonly request: TextTransformRequest;
      readonly ring: RingMaterial;
      readonly policies: PolicySnapshot;
      readonly settings: { defaultLanguage: string; ttlSeconds: number; contextStrategy: ContextStrategy; maxContextTokens: number };
      readonly nowMs: number;
    }
  | {
      readonly op: 'rehydrate';
      readonly request: RehydrateRequest;
      readonly ring: RingMaterial;
      readonly policies: PolicySnapshot;
      readonly templates?: RestoreTemplates | undefined;
      readonly nowMs: number;
    };

export type OffloadResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly detail?: string | undefined };

const patternCache = new Map<string, CompiledPattern[]>();
function compiled(patterns: readonly CustomPattern[]): CompiledPattern[] {
  if (patterns.length === 0) return [];
  const key = JSON.stringify(patterns);
  let set = patternCache.get(key);
  if (set === undefined) {
    set = compileCustomPatterns(patterns);
    if (patternCache.size > 256) patternCache.clear();
    patternCache.set(key, set);
  }
  return set;
}

let cachedRing: { key: string; ring: KeyRing } | undefined;
function ringOf(material: RingMaterial): KeyRing {
  const hash = createHash('sha256');
  hash.update(material.currentKid);
  for (const entry of material.keys) hash.update(entry.kid).update(entry.key);
  const key = hash.digest('hex');
  if (cachedRing?.key !== key) {
    cachedRing = { key, ring: new KeyRing(material.currentKid, material.keys.map((entry) => ({ kid: entry.kid, key: Buffer.from(entry.key) }))) };
  }
  return cachedRing.ring;
}

let cachedRegistry: { key: string; registry: PolicyRegistry } | undefined;
function registryOf(snapshot: PolicySnapshot): PolicyRegistry {
  if (cachedRegistry?.key !== snapshot.key) {
    const loaded = new Map(snapshot.policies.map((policy) => [policy.name, compilePolicy(policy, policy.name)]));
    cachedRegistry = { key: snapshot.key, registry: new PolicyRegistry(loaded, snapshot.defaultName, 0, snapshot.key) };
  }
  return cachedRegistry.registry;
}

function execute(task: OffloadTask): unknown {
  switch (task.op) {
    case 'parse':
      checkJsonDepth(task.body);
      return sjson.parse(task.body, undefined, { protoAction: 'error', constructorAction: 'ignore' });
    case 'detect':
      return detectAll(task.text, { customPatterns: compiled(task.patterns), ...(task.language !== undefined ? { language: task.language } : {}) }) satisfies Detection[];
    case 'transform': {
      const registry = registryOf(task.policies);
      const response = runTextTransform(
        {
          keyRing: ringOf(task.ring),
          policy: (name) => registry.get(name),
          compilePatterns: (raw) => compiled(raw),
          ...task.settings,
          nowMs: task.nowMs,
        },
        task.request,
      );
      // Serialized here so the event loop only copies one string.
      return JSON.stringify(response);
    }
    case 'rehydrate': {
      const registry = registryOf(task.policies);
      return JSON.stringify(
        runRehydrate({ keyRing: ringOf(task.ring), policy: (name) => registry.get(name), templates: task.templates, nowMs: task.nowMs }, task.request),
      );
    }
  }
}

export default function run(task: OffloadTask): OffloadResult {
  try {
    return { ok: true, value: execute(task) };
  } catch (error) {
    if (isVeilError(error)) return { ok: false, code: error.code, message: error.message, detail: error.detail };
    if (task.op === 'parse') return { ok: false, code: 'VEIL_VALIDATION_FAILED', message: 'body: is not valid JSON' };
    return { ok: false, code: 'VEIL_INTERNAL', message: 'internal error', detail: error instanceof Error ? error.name : 'unknown' };
  }
}
