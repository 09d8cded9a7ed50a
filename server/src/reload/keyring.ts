// The platform session key ring as a reloadable source. With `session.keyring_file` the ring is
// re-read when the file changes (a Kubernetes Secret update swaps `..data`), so the three-phase
// rotation of interface.md section 5 (add a key, switch current_kid, retire the old key) needs
// no restart. Each state is one immutable KeyRing swapped by reference; a seal or open is one
// synchronous call on one ring, so it never sees half a rotation. A file that fails to parse
// keeps the running ring.
//
// The generation identifies what is loaded without revealing it: 16 hex of SHA-256 over the
// current kid and, per kid, a hash of its key. /v1/diagnostics reports it per tenant so the
// operator can tell when every replica has loaded a rotation step.
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { readKeyRingFile } from '../config/keyring-file.js';
import type { KeyRing } from '../domain/seal/index.js';
import { fileStamp, readStable } from './stamp.js';

/** `state_keys`: generated once and kept beside the SQLite database (config/state-keys.ts). */
export type KeyRingOrigin = 'file' | 'config' | 'generated' | 'state_keys';

export function ringGeneration(ring: KeyRing): string {
  const hash = createHash('sha256').update(`veil-keyring/v1\ncurrent:${ring.currentKid}\n`);
  for (const kid of [...ring.kids].sort()) {
    const key = ring.get(kid)!;
    hash.update(`${kid}:${createHash('sha256').update(key).digest('hex')}\n`);
    key.fill(0);
  }
  return hash.digest('hex').slice(0, 16);
}

/** What diagnostics report for one ring (never key material). */
export interface KeyRingStatus {
  readonly tenant: string | null;
  readonly current_kid: string;
  readonly kids: readonly string[];
  readonly generation: string;
  /** `directory`: a tenant's ring from session.keyring_directory (tenant-keyrings.ts). */
  readonly source: KeyRingOrigin | 'directory';
  readonly loaded_at_unix: number;
}

export interface KeyRingReload {
  readonly reloaded: boolean;
  /** True when the ring differs from the one it replaced. */
  readonly changed: boolean;
  readonly generation: string;
  readonly errors: string[];
}

export class KeyRingSource {
  readonly origin: KeyRingOrigin;
  readonly file: string | undefined;
  readonly #now: () => number;
  #ring: KeyRing;
  #generation: string;
  #loadedAtUnix: number;

  constructor(options: { ring: KeyRing; origin: KeyRingOrigin; file?: string | undefined; now: () => number }) {
    this.#ring = options.ring;
    this.origin = options.origin;
    this.file = options.file;
    this.#now = options.now;
    this.#generation = ringGeneration(options.ring);
    this.#loadedAtUnix = Math.floor(options.now() / 1000);
  }

  /** The ring in force now. Read it once per operation. */
  get ring(): KeyRing {
    return this.#ring;
  }

  get generation(): string {
    return this.#generation;
  }

  /** Directories to watch (the file's parent: that is where a `..data` swap happens). */
  watchPaths(): string[] {
    return this.file === undefined ? [] : [dirname(this.file)];
  }

  stamp(): string {
    return this.file === undefined ? '' : fileStamp(this.file);
  }

  status(): KeyRingStatus {
    const ring = this.#ring;
    return {
      tenant: null,
      current_kid: ring.currentKid,
      kids: [...ring.kids],
      generation: this.#generation,
      source: this.origin,
      loaded_at_unix: this.#loadedAtUnix,
    };
  }

  /** Re-read the key-ring file; a file that does not parse keeps the running ring. */
  reload(): KeyRingReload {
    if (this.file === undefined) return { reloaded: false, changed: false, generation: this.#generation, errors: ['session.keyring_file: is not configured'] };
    const file = this.file;
    const read = readStable(() => fileStamp(file), () => readKeyRingFile(file));
    if (!read.stable) return { reloaded: false, changed: false, generation: this.#generation, errors: [`session.keyring_file ${file}: kept changing while it was read`] };
    const ring = read.value.ring;
    if (ring === undefined) return { reloaded: false, changed: false, generation: this.#generation, errors: read.value.problems };
    const generation = ringGeneration(ring);
    if (generation === this.#generation) return { reloaded: true, changed: false, generation, errors: [] };
    this.#ring = ring;
    this.#generation = generation;
    this.#loadedAtUnix = Math.floor(this.#now() / 1000);
    return { reloaded: true, changed: true, generation, errors: [] };
  }
}
