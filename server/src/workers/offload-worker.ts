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
import { KeyRing, openSession } from '../domain/seal/index.js';
import type { CustomPattern, Detection } from '../domain/types.js';
import { compilePolicy, PolicyRegistry } from '../services/policies.js';
import { openForRehydrate, REHYDRATE_KINDS, restoreOpened, type RehydrateRequest } from '../services/rehydrate.js';
import { revocationDigest } from '../services/revocation.js';
import { runTextTransform, type ContextStrategy, type SessionMeta, type TextTransformRequest } from '../services/transform.js';
import type { OutputProtectionSettings } from '../services/output-guard.js';
import type { PromptSecuritySettings } from '../services/prompt-security.js';
import { transformFacts, type AuditFacts } from '../audit/facts.js';
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
  /** The caller's tenant's allowed policy names (tenant settings); absent: every policy. */
  readonly allowed?: readonly string[];
}

export type OffloadTask =
  | { readonly op: 'parse'; readonly body: string }
  | { readonly op: 'detect'; readonly text: string; readonly language?: string | undefined; readonly patterns: readonly CustomPattern[] }
  | {
      readonly op: 'transform';
      readonly request: TextTransformRequest;
      readonly ring: RingMaterial;
      readonly policies: PolicySnapshot;
      readonly settings: {
        defaultLanguage: string;
        ttlSeconds: number;
        contextStrategy: ContextStrategy;
        maxContextTokens: number;
        promptSecurity?: PromptSecuritySettings | undefined;
      };
      readonly nowMs: number;
    }
  | {
      /** First half of a large rehydrate: open the session and list each entry's digest. */
      readonly op: 'rehydrate-open';
      readonly sessionState: string;
      readonly tenant: string | null;
      readonly ring: RingMaterial;
      readonly digestKey: Uint8Array;
      readonly nowMs: number;
    }
  | {
      readonly op: 'rehydrate';
      readonly request: RehydrateRequest;
      readonly ring: RingMaterial;
      readonly policies: PolicySnapshot;
      readonly templates?: RestoreTemplates | undefined;
      readonly outputProtection?: OutputProtectionSettings | undefined;
      readonly nowMs: number;
    };

/** Result of 'transform': the body without its session handle, the blob, and session meta. */
export interface OffloadedTransform {
  readonly body: string;
  readonly sessionState: string;
  readonly meta: SessionMeta;
  /** Audit facts of the result (types and counts), so the event loop need not parse the body. */
  readonly facts: AuditFacts;
  /** The input after prompt security stripped it, when that changed it (spans refer to it). */
  readonly cleanedInput?: string;
}

/** Result of 'rehydrate': the serialized response and whether the output guard triggered. */
export interface OffloadedRehydrate {
  readonly body: string;
  readonly outputGuardTriggered: boolean;
}

/** Result of 'rehydrate-open'. */
export interface OpenedForRehydrate {
  readonly sid: string;
  /** Issue time, unix seconds (the lifetime bound of services/state.ts assertNotDenied). */
  readonly iat: number;
  /** The session's policy name (for the audit event). */
  readonly policy?: string;
  readonly expiresAtMs: number;
  readonly digests: readonly { id: string; digest: string }[];
}

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

// Rings by material hash: each tenant has its own ring (session.keyring_directory), so a few are
// kept (most recently used last) instead of rebuilding one ring per call when tenants alternate.
const cachedRings = new Map<string, KeyRing>();
const MAX_CACHED_RINGS = 16;
/** Shared with workers/files-worker.ts. */
export function ringOf(material: RingMaterial): KeyRing {
  const hash = createHash('sha256');
  hash.update(material.currentKid);
  for (const entry of material.keys) hash.update(`\n${entry.kid}\n`).update(entry.key);
  const key = hash.digest('hex');
  let ring = cachedRings.get(key);
  if (ring === undefined) {
    ring = new KeyRing(material.currentKid, material.keys.map((entry) => ({ kid: entry.kid, key: Buffer.from(entry.key) })));
    if (cachedRings.size >= MAX_CACHED_RINGS) cachedRings.delete(cachedRings.keys().next().value!);
  } else {
    cachedRings.delete(key);
  }
  cachedRings.set(key, ring);
  return ring;
}

let cachedRegistry: { key: string; registry: PolicyRegistry } | undefined;
/** Shared with workers/files-worker.ts. */
export function registryOf(snapshot: PolicySnapshot): PolicyRegistry {
  if (cachedRegistry?.key !== snapshot.key) {
    const loaded = new Map(snapshot.policies.map((policy) => [policy.name, compilePolicy(policy, policy.name)]));
    cachedRegistry = { key: snapshot.key, registry: new PolicyRegistry(loaded, snapshot.defaultName, 0, snapshot.key) };
  }
  // The tenant's restriction travels with the snapshot, so a worker refuses what the event loop would.
  return cachedRegistry.registry.restrictedTo(snapshot.allowed);
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
      const outcome = runTextTransform(
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
      const promptSecurity = outcome.response.prompt_security;
      return {
        body: JSON.stringify(outcome.response),
        sessionState: outcome.sessionState,
        meta: outcome.meta,
        facts: { ...transformFacts(outcome.response), ...(promptSecurity !== undefined ? { prompt_security: promptSecurity.triggered } : {}) },
        ...(outcome.cleanedInput !== undefined ? { cleanedInput: outcome.cleanedInput } : {}),
      } satisfies OffloadedTransform;
    }
    case 'rehydrate-open': {
      const session = openSession(ringOf(task.ring), task.sessionState, { kinds: REHYDRATE_KINDS, tenant: task.tenant }, Math.floor(task.nowMs / 1000));
      const key = Buffer.from(task.digestKey);
      return {
        sid: session.sid,
        iat: session.iat,
        policy: session.policy,
        expiresAtMs: session.exp * 1000,
        digests: session.entries.map((entry) => ({ id: entry.id, digest: revocationDigest(key, entry.type, entry.value) })),
      } satisfies OpenedForRehydrate;
    }
    case 'rehydrate': {
      const started = performance.now();
      const registry = registryOf(task.policies);
      const env = {
        keyRing: ringOf(task.ring),
        policy: (name: string | undefined) => registry.get(name),
        templates: task.templates,
        outputProtection: task.outputProtection,
        nowMs: task.nowMs,
      };
      const session = openForRehydrate(env, task.request.sessionState, task.request.tenant);
      const response = restoreOpened(env, session, task.request, started);
      return { body: JSON.stringify(response), outputGuardTriggered: response.output_guard?.triggered === true } satisfies OffloadedRehydrate;
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
