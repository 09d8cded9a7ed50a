// `veil audit verify FILE`: the command-line face of verify.ts. The key comes from --key-file,
// --key (visible in the process list, so for local use) or VEIL_AUDIT__HMAC_KEY, in that
// order. Exit codes: 0 the chain verifies, 1 it does not (the first broken record is named), 2
// usage or key problems.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseSecret } from '../config/secrets.js';
import { describeResult, verifyAuditFile } from './verify.js';

export const AUDIT_USAGE = `usage: veil audit verify FILE [--key-file PATH | --key KEY] [--checkpoint PATH | --no-checkpoint]
  KEY: the audit.hmac_key (64 hex or base64); default from VEIL_AUDIT__HMAC_KEY
  the checkpoint defaults to FILE.checkpoint
`;

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
}

async function keyOf(values: { key?: string | undefined; 'key-file'?: string | undefined }, io: CliIo): Promise<Buffer | string> {
  let text: string | undefined;
  let source: string;
  if (values['key-file'] !== undefined) {
    source = '--key-file';
    try {
      text = (await readFile(values['key-file'], 'utf8')).trim();
    } catch (error) {
      return `--key-file: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  } else if (values.key !== undefined) {
    source = '--key';
    text = values.key;
  } else {
    source = 'VEIL_AUDIT__HMAC_KEY';
    text = io.env.VEIL_AUDIT__HMAC_KEY;
    if (text === undefined || text === '') return 'no key: pass --key-file or --key, or set VEIL_AUDIT__HMAC_KEY';
  }
  const key = parseSecret(text);
  // Never echo the text: it is (or is meant to be) a secret.
  return key ?? `${source}: must be 32 bytes written as 64 hex characters or standard base64`;
}

export async function auditCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args[0] === '--help' || args[0] === '-h') {
    io.out(AUDIT_USAGE);
    return 0;
  }
  if (args[0] !== 'verify') {
    io.err(`veil audit: ${args[0] === undefined ? 'missing subcommand' : 'unknown subcommand'}\n\n${AUDIT_USAGE}`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args.slice(1)],
      options: {
        key: { type: 'string' },
        'key-file': { type: 'string' },
        checkpoint: { type: 'string' },
        'no-checkpoint': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.err(`veil audit verify: ${error instanceof Error ? error.message : String(error)}\n\n${AUDIT_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.out(AUDIT_USAGE);
    return 0;
  }
  const problem =
    positionals.length === 0
      ? 'missing the audit file FILE'
      : positionals.length > 1
        ? 'expects one audit file'
        : values.checkpoint !== undefined && values['no-checkpoint'] === true
          ? '--checkpoint and --no-checkpoint exclude each other'
          : undefined;
  if (problem !== undefined) {
    io.err(`veil audit verify: ${problem}\n\n${AUDIT_USAGE}`);
    return 2;
  }
  const file = positionals[0]!;
  const key = await keyOf(values, io);
  if (typeof key === 'string') {
    io.err(`veil audit verify: ${key}\n`);
    return 2;
  }
  try {
    const checkpoint = values['no-checkpoint'] === true ? false : values.checkpoint;
    const result = await verifyAuditFile(file, key, checkpoint !== undefined ? { checkpoint } : {});
    if (result.ok) {
      io.out(`${describeResult(file, result)}\n`);
      return 0;
    }
    io.err(`${describeResult(file, result)}\n`);
    return 1;
  } catch (error) {
    io.err(`veil audit verify: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`);
    return 1;
  }
}
