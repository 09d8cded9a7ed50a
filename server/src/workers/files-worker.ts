// Worker-thread entry for file parsing (services/files.ts): format detection, PDF and DOCX text
// extraction, and file rehydrates. These threads run with a V8 heap limit, every task under a
// deadline and an RSS watchdog on the main thread that terminates the thread when a parse runs
// away (a flate bomb inside a PDF grows ArrayBuffers, which the heap limit does not count).
// Like the offload worker it lowers its own scheduling priority so the event loop wins a shared
// core. Results cross back as plain data; errors as {code, message} so VeilError survives.
import { setPriority } from 'node:os';
import { isVeilError } from '@veil/common';
import type { FileHint } from '../files/formats.js';
import { extractFile, rehydrateFile, type Extracted, type FileLimits, type RestoredFile } from '../files/process.js';
import type { OutputProtectionSettings } from '../services/output-guard.js';
import { createRestorer, openForRehydrate, outputGuardFor, type RehydrateRequest } from '../services/rehydrate.js';
import type { RestoreTemplates } from '../domain/restore/index.js';
import { ringOf, registryOf, type PolicySnapshot, type RingMaterial } from './offload-worker.js';

try {
  setPriority(19);
} catch {
  // Not permitted or not supported: run at normal priority.
}

export type FilesTask =
  | { readonly op: 'extract'; readonly bytes: Uint8Array; readonly hint: FileHint; readonly limits: FileLimits }
  | {
      readonly op: 'rehydrate';
      readonly bytes: Uint8Array;
      readonly hint: FileHint;
      readonly limits: FileLimits;
      readonly request: RehydrateRequest;
      readonly ring: RingMaterial;
      readonly policies: PolicySnapshot;
      readonly templates?: RestoreTemplates | undefined;
      readonly outputProtection?: OutputProtectionSettings | undefined;
      readonly nowMs: number;
    };

export type FilesResult =
  | { readonly ok: true; readonly value: Extracted | RestoredFile }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly detail?: string | undefined };

async function execute(task: FilesTask): Promise<Extracted | RestoredFile> {
  switch (task.op) {
    case 'extract':
      return extractFile(task.bytes, task.hint, task.limits);
    case 'rehydrate': {
      const registry = registryOf(task.policies);
      const env = {
        keyRing: ringOf(task.ring),
        policy: (name: string | undefined) => registry.get(name),
        templates: task.templates,
        outputProtection: task.outputProtection,
        nowMs: task.nowMs,
      };
      const session = openForRehydrate(env, task.request.sessionState, task.request.tenant);
      const restorer = createRestorer(env, session, task.request);
      return rehydrateFile(task.bytes, task.hint, task.limits, restorer, outputGuardFor(env, session, task.request.caller));
    }
  }
}

export default async function run(task: FilesTask): Promise<FilesResult> {
  try {
    return { ok: true, value: await execute(task) };
  } catch (error) {
    if (isVeilError(error)) return { ok: false, code: error.code, message: error.message, detail: error.detail };
    return { ok: false, code: 'VEIL_INTERNAL', message: 'internal error', detail: error instanceof Error ? error.name : 'unknown' };
  }
}
