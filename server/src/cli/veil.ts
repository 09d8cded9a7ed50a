// The `veil` command: serve, keygen, policy validate. Exit codes: 0 ok, 1 failure, 2 usage.
import { loadPolicyDirectory } from '@veil/common';
import { parseArgs } from 'node:util';
import { ConfigError, keygen } from '../config/index.js';
import { installShutdown, startServer, VERSION } from '../main.js';
import { PolicyLoadError } from '../services/policies.js';

const USAGE = `veil ${VERSION}

usage:
  veil serve [--config FILE] [--host HOST] [--port PORT]   start the API server
  veil keygen                                              print a new 32-byte secret (64 hex)
  veil policy validate DIR                                 validate the policy files in DIR
  veil --version
`;

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } },
    strict: true,
  });
  const overrides: Record<string, unknown> = {};
  if (values.host !== undefined || values.port !== undefined) {
    overrides.server = {
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(values.port !== undefined ? { port: Number(values.port) } : {}),
    };
  }
  try {
    const server = await startServer({ configFile: values.config ?? process.env.VEIL_CONFIG, env: process.env, overrides });
    installShutdown(server);
    return -1; // keep running
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
