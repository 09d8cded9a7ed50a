// A kubelet volume projector for running without Kubernetes: it writes the data of a ConfigMap
// or Secret into a directory exactly as the kubelet's AtomicWriter does, so a server pointed at
// the directory sees what it would see in a Pod:
//
//   dir/..2025_01_01_00_00_00.123456789/<files>   one timestamped payload directory per update
//   dir/..data -> ..2025_...                      swapped atomically (symlink + rename)
//   dir/<file> -> ..data/<file>                   stable per-file symlinks
//
// A reader that resolves paths through `..data` never sees half an update. The projector
// follows one object through an Informer (list + watch), so the operator, the API (simulator or
// real cluster) and the servers are the real pieces and only the kubelet is stood in for.
import { mkdir, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeClient } from '../kube/client.js';
import { Informer } from '../kube/informer.js';

const DATA_DIR = '..data';

let sequence = 0;

function payloadDirName(): string {
  const now = new Date();
  const stamp = now.toISOString().replace(/[-:T]/g, '_').replace(/\..*$/, '');
  sequence += 1;
  return `..${stamp}.${String(process.hrtime.bigint() % 1_000_000_000n).padStart(9, '0')}${sequence}`;
}

/**
 * Replace the directory's payload with `files` (name -> bytes) in one atomic step. Safe to call
 * repeatedly; stale payload directories and symlinks of removed files are cleaned up after the
 * swap, as the kubelet does.
 */
export async function writeAtomically(dir: string, files: Readonly<Record<string, Buffer>>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const payload = payloadDirName();
  await mkdir(join(dir, payload), { mode: 0o755 });
  for (const [name, content] of Object.entries(files)) {
    if (!/^[-._a-zA-Z0-9]+$/.test(name) || name.startsWith('..')) throw new Error('volume projector: refusing an unsafe file name');
    await writeFile(join(dir, payload, name), content, { mode: 0o644 });
  }
  const temporary = join(dir, '..data_tmp');
  await rm(temporary, { force: true });
  await symlink(payload, temporary);
  await rename(temporary, join(dir, DATA_DIR));
  for (const name of Object.keys(files)) {
    const link = join(dir, name);
    try {
      if ((await readlink(link)) === join(DATA_DIR, name)) continue;
    } catch {
      // missing: create below
    }
    await rm(link, { force: true });
    await symlink(join(DATA_DIR, name), link);
  }
  for (const entry of await readdir(dir)) {
    if (entry === DATA_DIR || entry === payload) continue;
    if (entry.startsWith('..')) {
      // The previous payload (and any leftover): readers resolve through ..data, which no
      // longer points here.
      await rm(join(dir, entry), { recursive: true, force: true });
      continue;
    }
    if (!Object.hasOwn(files, entry)) await rm(join(dir, entry), { force: true });
  }
}

export interface ProjectorOptions {
  readonly client: KubeClient;
  readonly kind: 'ConfigMap' | 'Secret';
  readonly namespace: string;
  readonly name: string;
  readonly dir: string;
  readonly relistIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

/** Keeps `dir` in step with one ConfigMap or Secret (an absent object projects as empty). */
export class VolumeProjector {
  readonly #informer: Informer;
  #written: string | undefined;
  #chain: Promise<void> = Promise.resolve();
  /** Number of payload swaps performed (tests wait on it). */
  swaps = 0;

  constructor(private readonly options: ProjectorOptions) {
    this.#informer = new Informer(options.client, options.kind, {
      namespace: options.namespace,
      relistIntervalMs: options.relistIntervalMs ?? 60_000,
      retryBaseMs: 50,
      retryMaxMs: 1000,
    });
    this.#informer.onChange((key) => {
      if (key === `${options.namespace}/${options.name}`) this.#chain = this.#chain.then(() => this.#sync());
    });
  }

  async start(): Promise<void> {
    await writeAtomically(this.options.dir, {});
    this.#informer.start();
    await this.#informer.waitForSync();
    await this.#chain;
  }

  /** Resolves once every change seen so far is on disk. */
  settled(): Promise<void> {
    return this.#chain;
  }

  stop(): void {
    this.#informer.stop();
  }

  async #sync(): Promise<void> {
    const object = this.#informer.get(this.options.namespace, this.options.name);
    const data = (object?.data ?? {}) as Record<string, string>;
    const files: Record<string, Buffer> = {};
    for (const [name, value] of Object.entries(data)) files[name] = this.options.kind === 'Secret' ? Buffer.from(value, 'base64') : Buffer.from(value, 'utf8');
    const signature = JSON.stringify(data);
    if (signature === this.#written) return;
    try {
      await writeAtomically(this.options.dir, files);
      this.#written = signature;
      this.swaps += 1;
    } catch (error) {
      this.options.onError?.(error);
    }
  }
}
