// The veil-operator process, minus the signal wiring (main.ts): settings from the environment
// (the chart's contract in @veil/common), the client from KUBECONFIG or the in-cluster service
// account, the operator with leader election, and a small HTTP server for /healthz, /readyz
// and /metrics. `stop()` is the graceful shutdown: stop taking work, finish reconciles in
// flight, release the lease, close the HTTP server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { parseOperatorSettings } from '@veil/common';
import { jsonLogger, describeError, type Logger } from './controllers/runtime.js';
import { loadKubeConfig, RealKubeClient } from './kube/real-client.js';
import type { OwnerReference } from './kube/types.js';
import { OperatorMetrics } from './metrics.js';
import { Operator, type OperatorOptions } from './operator.js';

/** Optional: name of the operator's own Deployment, made owner of what it creates (uninstall cleans up). */
export const OWNER_DEPLOYMENT_ENV = 'VEIL_OPERATOR_OWNER_DEPLOYMENT';
/** Optional: the Pod name (downward API), used as the leader-election identity. */
export const POD_NAME_ENV = 'POD_NAME';

export interface OperatorProcess {
  readonly operator: Operator;
  readonly healthUrl: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly kubeconfigYaml?: string;
  readonly logger?: Logger;
  /** Bind the health server here instead of 0.0.0.0:<healthPort> (tests: 127.0.0.1, port 0). */
  readonly healthHost?: string;
  readonly healthPort?: number;
  readonly operatorOverrides?: Partial<OperatorOptions>;
}

export class SettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid veil-operator settings: ${problems.join('; ')}`);
  }
}

/** A startup failure with a reason fit for the log (no stack needed). */
export class StartupError extends Error {}

export async function startOperatorProcess(options: StartOptions): Promise<OperatorProcess> {
  const logger = options.logger ?? jsonLogger();
  const parsed = parseOperatorSettings(options.env);
  if (parsed.settings === undefined) throw new SettingsError(parsed.problems);
  const settings = parsed.settings;
  const client = new RealKubeClient(loadKubeConfig(options.kubeconfigYaml === undefined ? {} : { kubeconfigYaml: options.kubeconfigYaml }));

  let owner: OwnerReference | undefined;
  const ownerName = options.env[OWNER_DEPLOYMENT_ENV];
  if (ownerName !== undefined && ownerName !== '') {
    const deployment = await client.get('Deployment', settings.namespace, ownerName);
    if (deployment?.metadata.uid === undefined) logger.warn('owner deployment not found; created objects get no owner', { deployment: ownerName });
    else owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: ownerName, uid: deployment.metadata.uid, blockOwnerDeletion: false };
  }

  const metrics = new OperatorMetrics({ defaultMetrics: true });
  const operator = new Operator({
    client,
    settings,
    logger,
    metrics,
    identity: options.env[POD_NAME_ENV] ?? hostname(),
    ...(owner === undefined ? {} : { owner }),
    ...options.operatorOverrides,
  });

  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET') {
      response.writeHead(405).end();
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      const healthy = operator.healthy;
      response.writeHead(healthy ? 200 : 503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: healthy ? 'ok' : 'unhealthy', leader: operator.isLeader, reconciling: operator.active }));
      return;
    }
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (body) => {
          response.writeHead(200, { 'content-type': metrics.registry.contentType });
          response.end(body);
        },
        (error: unknown) => {
          logger.error('metrics failed', { error: describeError(error) });
          response.writeHead(500).end();
        },
      );
      return;
    }
    response.writeHead(404).end();
  });
  const healthPort = options.healthPort ?? settings.healthPort;
  // A taken port (or any listen error) is a startup failure with a reason, before the operator
  // campaigns for leadership: an unhandled 'error' event would crash without one.
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new StartupError(error.code === 'EADDRINUSE' ? `health port ${healthPort} is already in use (VEIL_OPERATOR_HEALTH_PORT)` : `health server cannot listen on port ${healthPort}: ${error.message}`)));
    server.listen(healthPort, options.healthHost ?? '0.0.0.0', () => resolve());
  });
  const address = server.address() as AddressInfo;
  operator.start();
  logger.info('veil-operator started', { namespace: settings.namespace, identity: operator.identity, health_port: address.port });

  let stopping: Promise<void> | undefined;
  return {
    operator,
    healthUrl: `http://${options.healthHost ?? '127.0.0.1'}:${address.port}`,
    stop: () =>
      (stopping ??= (async () => {
        await operator.stop();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        logger.info('veil-operator stopped', { identity: operator.identity });
      })()),
  };
}
