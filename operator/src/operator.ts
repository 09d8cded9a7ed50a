// The operator: informers, controllers and their queues, started while this instance leads
// (Lease election) and stopped when it stops leading or shuts down. Informer events only add
// keys to queues (level-triggered); which keys a change concerns is decided here:
//   TokenizationPolicy, policy ConfigMap        -> policy controller, key = namespace
//   Tenant                                       -> tenant controller, key = namespace/name
//   key-ring / API-key Secret, tenants ConfigMap -> every tenant (drift is repaired)
//   a Secret of the tenant-keys namespace        -> the tenants that reference it (API keys)
//   NER Deployment / Service                     -> NER controller
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { OperatorSettings, Tenant } from '@veil/common';
import type { KubeClient } from './kube/client.js';
import { systemClock, type Clock } from './kube/clock.js';
import { Informer } from './kube/informer.js';
import { LeaderElector } from './kube/leader.js';
import { splitKey, type ConfigMap, type KubeObject, type OwnerReference, type Secret } from './kube/types.js';
import type { WorkQueue } from './kube/workqueue.js';
import { readFile } from 'node:fs/promises';
import { NerController } from './controllers/ner/controller.js';
import { PolicyController } from './controllers/policy/controller.js';
import { ControllerLoop, describeError, EventRecorder, silentLogger, type Logger, type ReconcileOutcome } from './controllers/runtime.js';
import { TenantController } from './controllers/tenant/controller.js';
import type { RingKey } from './controllers/tenant/rotation.js';
import type { OperatorMetrics } from './metrics.js';
import { PodReplicaReporter, type ReplicaReporter } from './replicas/reporter.js';

export interface OperatorOptions {
  readonly client: KubeClient;
  readonly settings: OperatorSettings;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly metrics?: OperatorMetrics;
  /** Defaults to the Pod reporter on settings.serverSelector / serverPort (key from serverApiKeyFile). */
  readonly reporter?: ReplicaReporter;
  readonly identity?: string;
  /** Owner of every object the operator creates (its own Deployment), when known. */
  readonly owner?: OwnerReference;
  /** Run without leader election (tests, single replica). Default: elect. */
  readonly leaderElection?: boolean;
  readonly lease?: { readonly durationMs?: number; readonly renewDeadlineMs?: number; readonly retryPeriodMs?: number };
  readonly relistIntervalMs?: number;
  readonly pollIntervalMs?: number;
  readonly retryBaseMs?: number;
  readonly newKey?: (nowMs: number) => RingKey;
}

interface Term {
  readonly informers: Informer[];
  readonly loops: ControllerLoop[];
}

export class Operator {
  readonly identity: string;
  readonly #options: OperatorOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #elector: LeaderElector | undefined;
  #term: Term | undefined;
  #termChange: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: OperatorOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.identity = options.identity ?? `${hostname()}-${randomBytes(4).toString('hex')}`;
    if (options.leaderElection !== false) {
      this.#elector = new LeaderElector({
        client: options.client,
        namespace: options.settings.namespace,
        name: options.settings.leaseName,
        identity: this.identity,
        clock: this.#clock,
        ...(options.owner === undefined ? {} : { owner: options.owner }),
        ...(options.lease?.durationMs === undefined ? {} : { leaseDurationMs: options.lease.durationMs }),
        ...(options.lease?.renewDeadlineMs === undefined ? {} : { renewDeadlineMs: options.lease.renewDeadlineMs }),
        ...(options.lease?.retryPeriodMs === undefined ? {} : { retryPeriodMs: options.lease.retryPeriodMs }),
        onStartedLeading: () => {
          this.#logger.info('started leading', { identity: this.identity, lease: options.settings.leaseName });
          options.metrics?.leader.set(1);
          this.#termChange = this.#termChange.then(() => this.#startTerm());
        },
        onStoppedLeading: async () => {
          this.#logger.warn('stopped leading: reconciling stops', { identity: this.identity });
          options.metrics?.leader.set(0);
          this.#termChange = this.#termChange.then(() => this.#stopTerm());
          await this.#termChange;
        },
        onError: (error) => this.#logger.warn('leader election round failed', { error: describeError(error) }),
      });
    }
  }

  /** True while controllers run (leading, or election disabled). */
  get active(): boolean {
    return this.#term !== undefined;
  }

  get isLeader(): boolean {
    return this.#elector === undefined ? this.#term !== undefined : this.#elector.isLeader;
  }

  /** Healthy: not stopped, and when active, every informer has synced once. */
  get healthy(): boolean {
    if (this.#stopped) return false;
    return this.#term === undefined || this.#term.informers.every((informer) => informer.hasSynced);
  }

  start(): void {
    if (this.#elector === undefined) {
      this.options.metrics?.leader.set(1);
      this.#termChange = this.#termChange.then(() => this.#startTerm());
    } else {
      this.#elector.start();
    }
  }

  /** Resolves once the current term (if any) is fully running: informers synced. */
  async settled(): Promise<void> {
    await this.#termChange;
    await Promise.all((this.#term?.informers ?? []).map((informer) => informer.waitForSync()));
  }

  /** Graceful: stop taking work, finish the reconciles in flight, release the lease. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#elector !== undefined) await this.#elector.stop();
    this.#termChange = this.#termChange.then(() => this.#stopTerm());
    await this.#termChange;
  }

  private get options(): OperatorOptions {
    return this.#options;
  }

  #startTerm(): void {
    if (this.#term !== undefined || this.#stopped) return;
    const { client, settings } = this.#options;
    const namespace = settings.namespace;
    const clock = this.#clock;
    const informerOptions = {
      namespace,
      clock,
      ...(this.#options.relistIntervalMs === undefined ? {} : { relistIntervalMs: this.#options.relistIntervalMs }),
      ...(this.#options.retryBaseMs === undefined ? {} : { retryBaseMs: this.#options.retryBaseMs }),
      onError: (error: unknown, phase: string) => this.#logger.info('informer retry', { phase, error: describeError(error) }),
    };
    const policies = new Informer<KubeObject>(client, 'TokenizationPolicy', informerOptions);
    const tenants = new Informer<KubeObject>(client, 'Tenant', informerOptions);
    // Secrets: only the two the operator writes (one informer per name: RBAC can grant a name,
    // not a label) and those of the tenant-keys namespace, which Tenants' API keys reference.
    const keyRings = new Informer<Secret>(client, 'Secret', { ...informerOptions, fieldSelector: `metadata.name=${settings.keyRingSecret}` });
    const apiKeyDigests = new Informer<Secret>(client, 'Secret', { ...informerOptions, fieldSelector: `metadata.name=${settings.apiKeysSecret}` });
    const tenantKeySecrets = new Informer<Secret>(client, 'Secret', { ...informerOptions, namespace: settings.tenantKeysNamespace });
    const configMaps = new Informer<ConfigMap>(client, 'ConfigMap', informerOptions);
    const informers: Informer[] = [policies, tenants, keyRings, apiKeyDigests, tenantKeySecrets, configMaps];
    const events = new EventRecorder(client, clock, this.#logger, this.identity);
    const metrics = this.#options.metrics;
    const hooks = { onReconciled: (controller: string, result: ReconcileOutcome, seconds: number) => metrics?.observeReconcile(controller, result, seconds) };
    const loopOptions = { clock, logger: this.#logger, hooks, ...(this.#options.retryBaseMs === undefined ? {} : { baseDelayMs: this.#options.retryBaseMs }) };
    const owner = this.#options.owner;

    // The diagnostics key is re-read per survey: the chart's Secret can rotate under the mount.
    const keyFile = settings.serverApiKeyFile;
    const apiKey = keyFile === undefined ? undefined : async (): Promise<string | undefined> => (await readFile(keyFile, 'utf8').catch(() => undefined))?.trim();
    const reporter = this.#options.reporter ?? new PodReplicaReporter(client, namespace, settings.serverSelector, settings.serverPort, apiKey === undefined ? {} : { apiKey });

    const policyLoop = new ControllerLoop({
      ...loopOptions,
      reconciler: new PolicyController({ client, clock, policies, configMaps, configMapName: settings.policyConfigMap, events, logger: this.#logger, ...(owner === undefined ? {} : { owner }) }),
    });
    const tenantLoop = new ControllerLoop({
      ...loopOptions,
      reconciler: new TenantController({
        client,
        clock,
        tenants,
        keyRings,
        apiKeyDigests,
        tenantKeySecrets,
        tenantKeysNamespace: settings.tenantKeysNamespace,
        configMaps,
        keyRingSecret: settings.keyRingSecret,
        apiKeysSecret: settings.apiKeysSecret,
        tenantsConfigMap: settings.tenantsConfigMap,
        sessionTtlMs: settings.sessionTtlSeconds * 1000,
        reporter,
        events,
        logger: this.#logger,
        ...(owner === undefined ? {} : { owner }),
        ...(this.#options.pollIntervalMs === undefined ? {} : { pollIntervalMs: this.#options.pollIntervalMs }),
        ...(this.#options.newKey === undefined ? {} : { newKey: this.#options.newKey }),
        ...(metrics === undefined ? {} : { onPhase: (tenant: string, phase: string) => metrics.setPhase(tenant, phase) }),
      }),
    });
    const loops = [policyLoop, tenantLoop];

    let nerLoop: ControllerLoop | undefined;
    if (settings.nerImage !== undefined && settings.nerApiKeySecret === undefined) {
      // Fail closed: a sidecar on a Pod address without a key would serve anyone in the cluster.
      this.#logger.error('NER sidecar not managed: VEIL_OPERATOR_NER_API_KEY_SECRET is not set', { ner: settings.nerName });
    } else if (settings.nerImage !== undefined && settings.nerApiKeySecret !== undefined) {
      const deployments = new Informer<KubeObject>(client, 'Deployment', informerOptions);
      const services = new Informer<KubeObject>(client, 'Service', informerOptions);
      informers.push(deployments, services);
      nerLoop = new ControllerLoop({
        ...loopOptions,
        reconciler: new NerController({
          client,
          settings: {
            namespace,
            name: settings.nerName,
            image: settings.nerImage,
            replicas: settings.nerReplicas,
            port: settings.nerPort,
            apiKeySecret: settings.nerApiKeySecret,
            ...(owner === undefined ? {} : { owner }),
          },
          deployments,
          services,
          logger: this.#logger,
        }),
      });
      loops.push(nerLoop);
      const onNer = (key: string): void => {
        if (splitKey(key).name === settings.nerName) nerLoop?.queue.add(namespace);
      };
      deployments.onChange(onNer);
      services.onChange(onNer);
    }

    const allTenants = (): void => {
      for (const tenant of tenants.list(namespace)) tenantLoop.queue.add(`${namespace}/${tenant.metadata.name}`);
    };
    policies.onChange((key) => policyLoop.queue.add(splitKey(key).namespace));
    tenants.onChange((key) => tenantLoop.queue.add(key));
    configMaps.onChange((key) => {
      const { name } = splitKey(key);
      if (name === settings.policyConfigMap) policyLoop.queue.add(namespace);
      if (name === settings.tenantsConfigMap) allTenants();
    });
    keyRings.onChange(allTenants);
    apiKeyDigests.onChange(allTenants);
    tenantKeySecrets.onChange((key) => {
      const { name } = splitKey(key);
      for (const tenant of tenants.list(namespace) as unknown as Tenant[]) {
        if ((tenant.spec.apiKeys ?? []).some((apiKey) => apiKey.secretRef.name === name)) tenantLoop.queue.add(`${namespace}/${tenant.metadata.name}`);
      }
    });

    for (const informer of informers) informer.start();
    // Workers start only once every cache has synced: a reconcile on a half-filled cache would
    // mistake "not listed yet" for "absent". Keys queued meanwhile wait (deduplicated).
    void Promise.all(informers.map((informer) => informer.waitForSync())).then(() => {
      if (this.#term?.loops !== loops) return;
      policyLoop.queue.add(namespace);
      nerLoop?.queue.add(namespace);
      for (const loop of loops) loop.start();
    });
    metrics?.track(new Map<string, WorkQueue>(loops.map((loop) => [loop.name, loop.queue])), informers);
    this.#term = { informers, loops };
    this.#logger.info('controllers started', { namespace, controllers: loops.map((loop) => loop.name) });
  }

  async #stopTerm(): Promise<void> {
    const term = this.#term;
    if (term === undefined) return;
    this.#term = undefined;
    for (const informer of term.informers) informer.stop();
    await Promise.all(term.loops.map((loop) => loop.stop()));
    this.#logger.info('controllers stopped', { identity: this.identity });
  }
}
