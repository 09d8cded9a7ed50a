// The `veil` command: serve, keygen, policy validate, audit verify. Exit codes: 0 ok, 1 failure,
// 2 usage. Every command answers `--help` (or `-h`, or `veil help COMMAND`) with its usage on
// stdout; a usage error (unknown option, missing or extra argument, bad value) prints one line
// saying what is wrong plus the command's usage on stderr, never a stack trace.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AUDIT_USAGE, auditCommand } from '../audit/cli.js';
import { ConfigError, keygen } from '../config/index.js';
import { runServe, VERSION } from '../main.js';
import { loadPolicyRegistry, PolicyLoadError } from '../services/policies.js';

const SERVE_USAGE = `usage: veil serve [--config FILE] [--host HOST] [--port PORT] [--workers N]
  Start the API server. Configuration: FILE (or VEIL_CONFIG), then VEIL_* variables, then flags.
  --config FILE   YAML configuration file
  --host HOST     listen address (default 0.0.0.0; VEIL_HOST)
  --port PORT     listen port, 0 to 65535 (default 3000; VEIL_PORT)
  --workers N     worker processes (default 1, or one per core with shared state stores)
`;

const KEYGEN_USAGE = `usage: veil keygen
  Print a new random 32-byte secret as 64 hex characters (session.secret, audit.hmac_key, ...).
`;

const POLICY_USAGE = `usage: veil policy validate DIR
  Validate every policy file (*.yaml, *.yml) of DIR and its default-policy.txt as the server
  would load them; every problem of every file is listed (file:line: field: message).
`;

const USAGE = `veil ${VERSION}

usage:
  veil serve [--config FILE] [--host HOST] [--port PORT] [--workers N]
                                                           start the API server (N worker processes)
  veil keygen                                              print a new 32-byte secret (64 hex)
  veil policy validate DIR                                 validate the policy files in DIR
  veil audit verify FILE [--key-file PATH | --key KEY] [--checkpoint PATH | --no-checkpoint]
                                                           check an audit file's HMAC chain
  veil --version
  veil COMMAND --help                                      a command's usage
`;

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/** A usage error: what is wrong (one line, no stack) and the command's usage. */
function usageError(command: string, problem: string, usage: string): number {
  process.stderr.write(`veil ${command}: ${problem}\n\n${usage}`);
  return 2;
}

interface ParsedCommand {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Parse a command's arguments with `--help` added. Returns the parse, or the exit code when
 * the command is done (help printed: 0, usage error: 2).
 */
function parseCommand(command: string, args: string[], options: NonNullable<ParseArgsConfig['options']>, usage: string): ParsedCommand | number {
  let parsed: ParsedCommand;
  try {
    parsed = parseArgs({ args, options: { ...options, ...HELP_OPTION }, allowPositionals: true, strict: true });
  } catch (error) {
    // node:util's messages name the option, never a value.
    return usageError(command, error instanceof Error ? error.message : String(error), usage);
  }
  if (parsed.values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  return parsed;
}

/** A string option's value (parseArgs gives strings for `type: 'string'`). */
function option(parsed: ParsedCommand, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

async function serve(args: string[]): Promise<number> {
  const parsed = parseCommand('serve', args, { config: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, workers: { type: 'string' } }, SERVE_USAGE);
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length > 0) return usageError('serve', `unexpected argument '${parsed.positionals[0]!}'`, SERVE_USAGE);
  const [config, host, port, workers] = [option(parsed, 'config'), option(parsed, 'host'), option(parsed, 'port'), option(parsed, 'workers')];
  if (workers !== undefined && !/^[1-9][0-9]{0,3}$/.test(workers)) return usageError('serve', '--workers must be a positive integer', SERVE_USAGE);
  if (port !== undefined && !(/^[0-9]{1,5}$/.test(port) && Number(port) <= 65535)) return usageError('serve', '--port must be an integer from 0 to 65535', SERVE_USAGE);
  const overrides: Record<string, unknown> = {};
  if (host !== undefined || port !== undefined || workers !== undefined) {
    overrides.server = {
      ...(host !== undefined ? { host } : {}),
      ...(port !== undefined ? { port: Number(port) } : {}),
      ...(workers !== undefined ? { workers: Number(workers) } : {}),
    };
  }
  try {
    // -1: keep running (the server, or the cluster primary until its workers exit).
    return await runServe({
      configFile: config ?? process.env.VEIL_CONFIG,
      env: process.env,
      overrides,
      ...(process.argv[1] !== undefined ? { relaunch: { script: process.argv[1], args: ['serve', ...args] } } : {}),
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`veil: invalid configuration:\n${error.problems.map((problem) => `  - ${problem}`).join('\n')}\n`);
      return 1;
    }
    if (error instanceof PolicyLoadError) {
      process.stderr.write(`veil: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`veil: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function keygenCommand(args: string[]): number {
  const parsed = parseCommand('keygen', args, {}, KEYGEN_USAGE);
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length > 0) return usageError('keygen', `unexpected argument '${parsed.positionals[0]!}'`, KEYGEN_USAGE);
  process.stdout.write(`${keygen()}\n`);
  return 0;
}

/**
 * `veil policy validate DIR`: the same check as startup and reload (every file, the default
 * marker, the set), so a directory that passes here loads in the server.
 */
function policyCommand(args: string[]): number {
  const parsed = parseCommand('policy', args, {}, POLICY_USAGE);
  if (typeof parsed === 'number') return parsed;
  const [subcommand, dir, ...extra] = parsed.positionals;
  if (subcommand !== 'validate') return usageError('policy', subcommand === undefined ? 'missing subcommand' : `unknown subcommand '${subcommand}'`, POLICY_USAGE);
  if (dir === undefined) return usageError('policy validate', 'missing the policy directory DIR', POLICY_USAGE);
  if (extra.length > 0) return usageError('policy validate', `unexpected argument '${extra[0]!}'`, POLICY_USAGE);
  try {
    const registry = loadPolicyRegistry({ directory: dir, nowUnix: Math.floor(Date.now() / 1000) });
    const names = [...registry.names()].sort();
    process.stdout.write(`${names.length} valid ${names.length === 1 ? 'policy' : 'policies'}: ${names.join(', ')} (default '${registry.defaultName}')\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof PolicyLoadError)) throw error;
    for (const issue of error.issues) {
      process.stderr.write(`${issue.file}${issue.line !== undefined ? `:${issue.line}` : ''}: ${issue.field}: ${issue.message}\n`);
    }
    process.stderr.write(`${error.issues.length} problem(s) found\n`);
    return 1;
  }
}

/** `veil help [COMMAND]` and `veil COMMAND --help`: the usage of one command, or of all. */
function usageOf(command: string | undefined): string {
  switch (command) {
    case 'serve':
      return SERVE_USAGE;
    case 'keygen':
      return KEYGEN_USAGE;
    case 'policy':
      return POLICY_USAGE;
    case 'audit':
      return AUDIT_USAGE;
    default:
      return USAGE;
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'keygen':
      return keygenCommand(rest);
    case 'audit':
      return auditCommand(rest, {
        env: process.env,
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
      });
    case 'policy':
      return policyCommand(rest);
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case 'help':
      if (rest[0] !== undefined && usageOf(rest[0]) === USAGE) return usageError('help', `unknown command '${rest[0]}'`, USAGE);
      process.stdout.write(usageOf(rest[0]));
      return 0;
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    case undefined:
      process.stderr.write(USAGE);
      return 2;
    default:
      process.stderr.write(`veil: unknown ${command.startsWith('-') ? 'option' : 'command'} '${command}'\n\n${USAGE}`);
      return 2;
  }
}
