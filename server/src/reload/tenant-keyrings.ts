// Per-tenant session key rings (decisions.md section 11: "Blobs of a tenant are sealed under that
// tenant's key ring; untenanted callers use the platform ring"). `session.keyring_directory` is
// the Secret the Kubernetes operator renders, mounted as a directory: one
// `{format, tenant_id, generation, current_kid, keys}` file per Tenant (@veil/common layout).
//
// keyRingFor(tenant) answers the tenant's own ring when it has one, else the platform ring.
// Falling back is safe because every blob's associated data binds its tenant: a blob sealed for
// one tenant never opens for another, whichever ring sealed it. A tenant whose ring appears
// later cannot open the blobs it sealed under the platform ring before (they answer 410
// VEIL_SESSION_EXPIRED), which is why the operator writes the ring before the tenant's API keys
// exist to call with; see docs/kubernetes.md.
//
// Each ring is one immutable KeyRing swapped by reference, so a seal or open (one synchronous
// call on one ring) never sees half a rotation step. A ring file that fails to parse keeps that
// tenant's last good ring, reported in /v1/diagnostics; the generation reported per tenant is
// ringGeneration (what the operator's rotation waits for).
import { createHash } from 'node:crypto';
import { parseKeyRingFile } from '@veil/common';
import { keyRingFromData, MAX_KEYRING_FILE_BYTES } from '../config/keyring-file.js';
import type { KeyRing } from '../domain/seal/index.js';
import { ringGeneration, type KeyRingStatus } from './keyring.js';
import { TenantDirectory, type TenantDirectoryReload } from './tenant-directory.js';

interface LoadedRing {
  readonly ring: KeyRing;
  /** ringGeneration(ring): what /v1/diagnostics reports. */
  readonly generation: string;
}

/** What diagnostics report for a tenant ring (never key material). */
export interface TenantKeyRingStatus extends KeyRingStatus {
  readonly tenant: string;
  readonly file: string;
  /** The operator's counter from the file. */
  readonly file_generation: number;
  /** Present when a newer version of the file was refused: this ring is the last good one. */
  readonly problems?: readonly string[];
}

function parseRing(text: string, file: string): { ok: true; tenant: string; generation: number; value: LoadedRing } | { ok: false; problems: string[] } {
  const parsed = parseKeyRingFile(text, file);
  if (!parsed.ok) return { ok: false, problems: parsed.problems.map((problem) => `${problem.field}: ${problem.message}`) };
  const built = keyRingFromData({ current_kid: parsed.value.current_kid, keys: parsed.value.keys.map((key) => ({ kid: key.kid, secret: key.secret })) }, file, false);
  if (built.ring === undefined) return { ok: false, problems: built.problems };
  return { ok: true, tenant: parsed.value.tenant_id, generation: parsed.value.generation, value: { ring: built.ring, generation: ringGeneration(built.ring) } };
}

export class TenantKeyRingSource {
  readonly directory: string | undefined;
  readonly #rings: TenantDirectory<LoadedRing> | undefined;

  /** Throws (a startup configuration error) when the directory or a ring file is unusable. */
  constructor(options: { directory?: string | undefined; now: () => number }) {
    this.directory = options.directory;
    this.#rings =
      options.directory === undefined
        ? undefined
        : new TenantDirectory<LoadedRing>({
            label: 'session.keyring_directory',
            directory: options.directory,
            maxFileBytes: MAX_KEYRING_FILE_BYTES,
            parse: parseRing,
            same: (a, b) => a.generation === b.generation,
            now: options.now,
          });
  }

  /** The tenant's own ring, or undefined (the caller falls back to the platform ring). */
  ringOf(tenant: string): KeyRing | undefined {
    return this.#rings?.get(tenant)?.value.ring;
  }

  /** 16 hex over every tenant ring loaded (tenant, file, generations); '' without a directory. */
  get generation(): string {
    return this.#rings === undefined ? '' : this.#rings.generation((value) => value.generation);
  }

  watchPaths(): string[] {
    return this.directory === undefined ? [] : [this.directory];
  }

  stamp(): string {
    return this.#rings?.stamp() ?? '';
  }

  status(): TenantKeyRingStatus[] {
    return (this.#rings?.entries() ?? []).map((entry) => ({
      tenant: entry.tenant,
      current_kid: entry.value.ring.currentKid,
      kids: [...entry.value.ring.kids],
      generation: entry.value.generation,
      source: 'directory',
      loaded_at_unix: entry.loadedAtUnix,
      file: entry.file,
      file_generation: entry.fileGeneration,
      ...(entry.problems !== undefined ? { problems: entry.problems } : {}),
    }));
  }

  /** Ring files present with no usable version (startup never gets here with any). */
  problems(): { file: string; problems: readonly string[] }[] {
    return this.#rings?.unusable() ?? [];
  }

  reload(): TenantDirectoryReload {
    if (this.#rings === undefined) return { ok: false, changed: false, errors: ['session.keyring_directory: is not configured'] };
    return this.#rings.reload();
  }
}

/** The `keyring` reload event's generation: the platform ring's, combined with the tenants'. */
export function keyRingsGeneration(platform: string, tenants: string): string {
  return tenants === '' ? platform : createHash('sha256').update(`${platform}\n${tenants}`).digest('hex').slice(0, 16);
}
