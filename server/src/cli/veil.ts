// The `veil` command: serve, keygen, policy validate, audit verify. Exit codes: 0 ok, 1 failure, 2 usage.
import { loadPolicyDirectory } from '@veil/common';
import { parseArgs } from 'node:util';
import { auditCommand } from '../audit/cli.js';
import { ConfigError, keygen } from '../config/index.js';
import { runServe, VERSION } from '../main.js';
import { PolicyLoadError } from '../services/policies.js';

const USAGE = `veil ${VERSION}

usage:
  veil serve [--config FILE] [--host HOST] [--port PORT] [--workers N]
                                                           start the API server (N worker processes)
  veil keygen                                              print a new 32-byte secret (64 hex)
  veil policy validate DIR                                 validate the policy files in DIR
  veil audit verify FILE [--key-file PATH | --key KEY] [--checkpoint PATH | --no-checkpoint]
                                                           check an audit file's HMAC chain
  veil --version
`;

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, workers: { type: 'string' } },
    strict: true,
  });
  const overrides: Record<string, unknown> = {};
  if (values.workers !== undefined && !/^[0-9]{1,4}$/.test(values.workers)) {
    process.stderr.write('veil: --workers must be a positive integer\n');
    return 2;
  }
  if (values.host !== undefined || values.port !== undefined || values.workers !== undefined) {
    overrides.server = {
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(values.port !== undefined ? { port: Number(values.port) } : {}),
      ...(values.workers !== undefined ? { workers: Number(values.workers) } : {}),
    };
  }
  try {
    // -1: keep running (the server, or the cluster primary until its workers exit).
    return await runServe({ configFile: values.config ?? process.env.VEIL_CONFIG, env: process.env, overrides });
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

function validatePolicies(dir: string | undefined): number {
  if (dir === undefined) {
    process.stderr.write(USAGE);
    return 2;
  }
  const { policies, issues } = loadPolicyDirectory(dir);
  if (issues.length > 0) {
    for (const issue of issues) {
      process.stderr.write(`${issue.file}${issue.line !== undefined ? `:${issue.line}` : ''}: ${issue.field}: ${issue.message}\n`);
    }
    process.stderr.write(`${issues.length} problem(s) found\n`);
    return 1;
  }
  if (policies.size === 0) {
    process.stderr.write(`${dir}: no policy files found\n`);
    return 1;
  }
  process.stdout.write(`${policies.size} valid ${policies.size === 1 ? 'policy' : 'policies'}: ${[...policies.keys()].sort().join(', ')}\n`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'keygen':
      process.stdout.write(`${keygen()}\n`);
      return 0;
    case 'audit':
      return auditCommand(rest, {
        env: process.env,
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
      });
    case 'policy':
      if (rest[0] === 'validate') return validatePolicies(rest[1]);
      process.stderr.write(USAGE);
      return 2;
    case '--version':
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`veil: unknown command '${command}'\n${USAGE}`);
      return 2;
  }
}
