// Password-protected PDFs for the file tests, by qpdf (pdf-lib cannot encrypt). A separate module
// because it starts a process: a test that imports it belongs to the integration project
// (vitest.config.ts), while the other document builders (documents.ts) are in-process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function hasQpdf(): boolean {
  return spawnSync('qpdf', ['--version']).status === 0;
}

/** AES-256 encryption with a user password, by qpdf (pdf-lib cannot encrypt). */
export function encryptPdf(bytes: Uint8Array, password = 'user-secret'): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'veil-pdf-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), bytes);
    const result = spawnSync('qpdf', ['--encrypt', password, `${password}-owner`, '256', '--', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    if (result.status !== 0) throw new Error(`qpdf failed: ${result.stderr.toString()}`);
    return readFileSync(join(dir, 'out.pdf'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
