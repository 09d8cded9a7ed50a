// Process wiring only: load config, build the app, listen, shut down gracefully.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { NerClient } from './clients/ner.js';
import { loadConfig, type LoadedConfig } from './config/index.js';
import type { AppDeps } from './deps.js';
import { deriveCorpusKeys } from './domain/token/index.js';
import { createLogger } from './logging.js';
import { createOffload } from './services/offload.js';
import { loadPolicyRegistry } from './services/policies.js';
import { openAppStores } from './services/stores.js';

export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface StartOptions {
  readonly configFile?: string | undefined;
  readonly env: Record<string, string | undefined>;
  readonly overrides?: Record<string, unknown>;
  readonly logStream?: NodeJS.WritableStream;
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly logger: Logger;
  close(): Promise<void>;
}

export async function buildDeps(loaded: LoadedConfig, onWarning: (message: string) => void = () => undefined): Promise<AppDeps> {
  const config = loaded.config;
  const now = Date.now;
  const registry = loadPolicyRegistry({
    directory: config.policy.directory,
    defaultName: config.policy.default,
    nowUnix: Math.floor(now() / 1000),
  });
  const stores = await openAppStores(config, onWarning);
  const ner =
    config.detector.advanced_url !== undefined
      ? new NerClient({ baseUrl: config.detector.advanced_url, apiKey: config.detector.api_key?.reveal(), timeoutMs: config.detector.timeout_secs * 1000 })
      : undefined;
  const counters = { nerDegraded: 0 };
  return {
    config,
    keyRing: loaded.keyRing,
    digestSecret: loaded.digestSecret,
    stores,
    ner,
    countNerDegraded: () => {
      counters.nerDegraded += 1;
    },
    corpusKeys: deriveCorpusKeys(loaded.serverSecret),
    policies: { registry },
    offload: createOffload({ threshold: config.transform.offload_threshold_bytes }),
    now,
    version: VERSION,
    startedAtMs: now(),
  };
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const loaded = loadConfig({
    ...(options.configFile !== undefined ? { file: options.configFile } : {}),
    env: options.env,
    ...(options.overrides !== undefined ? { overrides: options.overrides } : {}),
  });
  const config = loaded.config;
  const logger = createLogger({
    level: config.log.level,
    format: config.log.format,
    ...(options.logStream !== undefined ? { stream: options.logStream } : {}),
  });
  for (const warning of loaded.warnings) logger.warn(warning);
  const deps = await buildDeps(loaded, (message) => logger.warn(message));
  const app = await buildApp(deps, { logger });
  const url = await app.listen({ host: config.server.host, port: config.server.port });
  logger.info(
    { url, auth_mode: config.auth.mode, policies: deps.policies.registry.names(), default_policy: deps.policies.registry.defaultName, version: VERSION },
    'veil server listening',
  );
  return {
    app,
    url,
    logger,
    close: async () => {
      await app.close();
    },
  };
}

/** Stop accepting connections, finish in-flight requests, then exit. */
export function installShutdown(server: RunningServer): void {
  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    server.logger.info({ signal }, 'shutting down');
    server
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        server.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
