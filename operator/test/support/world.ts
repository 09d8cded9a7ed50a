// Test world for operator scenarios: the API simulator (with the generated CRDs' validation),
// the real client library pointed at it, simulated server replicas that "mount" the key-ring
// Secret and answer /v1/diagnostics with the generation they have loaded (each can be frozen to
// lag behind), and operators built from the real code. Scenarios assert world state: objects
// in the simulator, statuses, events.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseKeyRingFile, parseOperatorSettings, type OperatorSettings } from '@veil/common';
import { ringFingerprint } from '../../src/controllers/tenant/rotation.js';
import { jsonLogger, silentLogger, type Logger } from '../../src/controllers/runtime.js';
import { loadKubeConfig, RealKubeClient } from '../../src/kube/real-client.js';
import type { KubeObject, Secret } from '../../src/kube/types.js';
import { OperatorMetrics } from '../../src/metrics.js';
import { Operator, type OperatorOptions } from '../../src/operator.js';
import { UrlReplicaReporter } from '../../src/replicas/reporter.js';
import { crdValidators } from '../sim/crd-validation.js';
import { ApiSimulator } from '../sim/server.js';

export const NAMESPACE = 'veil';
/** Where Tenants' API-key Secrets live (the operator's default for NAMESPACE). */
export const TENANT_KEYS_NAMESPACE = `${NAMESPACE}-tenant-keys`;

export function testSettings(overrides: Record<string, string> = {}): OperatorSettings {
  const parsed = parseOperatorSettings({ VEIL_OPERATOR_NAMESPACE: NAMESPACE, VEIL_OPERATOR_SESSION_TTL_SECONDS: '1', ...overrides });
  if (parsed.settings === undefined) throw new Error(parsed.problems.join('; '));
  return parsed.settings;
}

/** A server replica stand-in: reports what it has "loaded" from the key-ring Secret. */
export class FakeReplica {
  readonly name: string;
  #server: Server;
  #frozen: Map<string, string> | undefined;
  requests = 0;

  /** `readSecret` returns the key-ring Secret as the replica's volume would hold it now. */
  constructor(
    name: string,
    private readonly readSecret: () => Secret | undefined | Promise<Secret | undefined>,
  ) {
    this.name = name;
    this.#server = createServer((request, response) => {
      this.requests += 1;
      if (request.url !== '/v1/diagnostics') {
        response.writeHead(404).end();
        return;
      }
      void (async () => {
        const rings = this.#frozen ?? (await this.current());
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ key_rings: [...rings].map(([tenant, generation]) => ({ tenant, generation })) }));
      })().catch(() => response.writeHead(500).end());
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** The fingerprint per tenant id of what the Secret holds now (what a synced replica loads). */
  async current(): Promise<Map<string, string>> {
    const rings = new Map<string, string>();
    const secret = await this.readSecret();
    for (const [file, value] of Object.entries(secret?.data ?? {})) {
      const parsed = parseKeyRingFile(Buffer.from(value, 'base64').toString('utf8'), file);
      if (parsed.ok) rings.set(parsed.value.tenant_id, ringFingerprint(parsed.value));
    }
    return rings;
  }

  /** Stop loading: keep reporting what is loaded now (a replica whose volume lags). */
  async freeze(): Promise<void> {
    this.#frozen = await this.current();
  }

  thaw(): void {
    this.#frozen = undefined;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export interface World {
  readonly simulator: ApiSimulator;
  readonly client: RealKubeClient;
  readonly settings: OperatorSettings;
  readonly replicas: FakeReplica[];
  startOperator(overrides?: Partial<OperatorOptions>): Operator;
  stop(): Promise<void>;
}

export async function createWorld(options: { replicas?: number; settings?: Record<string, string>; verbose?: boolean } = {}): Promise<World> {
  const simulator = await ApiSimulator.start({ validators: crdValidators(), namespaces: [NAMESPACE, TENANT_KEYS_NAMESPACE] });
  const client = new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig(NAMESPACE) }));
  const settings = testSettings(options.settings);
  const replicas = await Promise.all(Array.from({ length: options.replicas ?? 2 }, (_, index) => new FakeReplica(`veil-server-${index}`, () => simulator.peek<Secret>('Secret', NAMESPACE, settings.keyRingSecret)).start()));
  const operators: Operator[] = [];
  const logger: Logger = options.verbose === true ? jsonLogger() : silentLogger;
  return {
    simulator,
    client,
    settings,
    replicas,
    startOperator(overrides = {}) {
      const operator = new Operator({
        client,
        settings,
        logger,
        metrics: new OperatorMetrics(),
        reporter: new UrlReplicaReporter(() => replicas.map((replica) => ({ name: replica.name, url: replica.url }))),
        leaderElection: false,
        relistIntervalMs: 60_000,
        pollIntervalMs: 50,
        retryBaseMs: 20,
        ...overrides,
      });
      operator.start();
      operators.push(operator);
      return operator;
    },
    async stop() {
      await Promise.all(operators.map((operator) => operator.stop()));
      await Promise.all(replicas.map((replica) => replica.stop()));
      await simulator.stop();
    },
  };
}

/** Poll until `check` returns a value other than undefined/false (no fixed sleeps). */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function conditionOf(object: KubeObject | undefined, type: string): { status: string; reason: string; message: string } | undefined {
  const conditions = (object?.status as { conditions?: { type: string; status: string; reason: string; message: string }[] } | undefined)?.conditions;
  return conditions?.find((condition) => condition.type === type);
}
