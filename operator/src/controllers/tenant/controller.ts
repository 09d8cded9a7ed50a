// Tenant controller. Key: namespace/name. Every tenant's files live in three shared objects the
// servers mount as directories (key rings and API keys in Secrets, settings in a ConfigMap; see
// @veil/common layout.ts), so one reconcile: reads the caches, plans the rotation step and the
// files purely, asks the replicas only when a phase waits on them, writes the key ring first,
// then the API keys and settings, then the status (patch only on change), then events. Files of
// tenants that no longer exist are swept on every pass, so a deletion missed while the operator
// was down is still cleaned up. The key material never leaves the Secret: status, events and
// logs carry kids, generations and fingerprints only.
import { TENANT_CONDITIONS, tenantFileName, type Tenant, type TenantStatus } from '@veil/common';
import type { KubeClient } from '../../kube/client.js';
import type { Clock } from '../../kube/clock.js';
import type { Informer } from '../../kube/informer.js';
import { splitKey, type ConfigMap, type KubeObject, type OwnerReference, type Secret } from '../../kube/types.js';
import type { ReplicaReporter } from '../../replicas/reporter.js';
import { setConditions, type ConditionInput } from '../conditions.js';
import { applyObject, dataRules, MANAGED_BY_LABELS, patchStatusIfChanged, type EventRecorder, type Logger, type ReconcileResult, type Reconciler } from '../runtime.js';
import { editSharedData, planApiKeys, planSettings, readRing, renderRing, secretText, toSecretData } from './desired.js';
import { generateKey, planRotation, type ReplicaObservation, type RingKey, type RotationPlan } from './rotation.js';

/**
 * Annotation of the key-ring Secret: JSON map of tenant file -> the `rotateAt` value acted on.
 * It is written in the same update as the ring, so a request is never acted on twice even when
 * the status patch that records it fails.
 */
export const HANDLED_ROTATE_AT_ANNOTATION = 'veil.dev/rotate-at-handled';

function handledMap(secret: Secret | undefined): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(secret?.metadata.annotations?.[HANDLED_ROTATE_AT_ANNOTATION] ?? '{}');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

function withHandled(current: Record<string, string>, file: string, value: string | undefined, liveFiles: ReadonlySet<string>): Record<string, string> {
  const next = Object.fromEntries(Object.entries(current).filter(([name]) => name !== file && liveFiles.has(name)));
  if (value !== undefined) next[file] = value;
  return next;
}

export interface TenantControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly tenants: Informer;
  /** The key-ring Secret (an informer on that one name). */
  readonly keyRings: Informer<Secret>;
  /** The API-key digests Secret (an informer on that one name). */
  readonly apiKeyDigests: Informer<Secret>;
  /** Every Secret of the tenant-keys namespace: what Tenants' apiKeys[].secretRef name. */
  readonly tenantKeySecrets: Informer<Secret>;
  readonly tenantKeysNamespace: string;
  readonly configMaps: Informer<ConfigMap>;
  readonly keyRingSecret: string;
  readonly apiKeysSecret: string;
  readonly tenantsConfigMap: string;
  readonly sessionTtlMs: number;
  readonly reporter: ReplicaReporter;
  readonly events: EventRecorder;
  readonly logger: Logger;
  readonly owner?: OwnerReference;
  readonly pollIntervalMs?: number;
  readonly newKey?: (nowMs: number) => RingKey;
  /** Called with each tenant's rotation phase (metrics). */
  readonly onPhase?: (tenant: string, phase: string) => void;
}

export class TenantController implements Reconciler {
  readonly name = 'tenant';

  constructor(private readonly options: TenantControllerOptions) {}

  #shared(kind: 'Secret' | 'ConfigMap', namespace: string, name: string, component: string, data: Record<string, string>, annotations?: Record<string, string>): KubeObject {
    return {
      apiVersion: 'v1',
      kind,
      metadata: {
        name,
        namespace,
        labels: { ...MANAGED_BY_LABELS, 'app.kubernetes.io/component': component },
        ...(annotations === undefined ? {} : { annotations }),
        // Key rings are never owned: they hold the only copy of the keys that open live sessions,
        // so they outlive the operator's Deployment (helm uninstall keeps them).
        ...(this.options.owner === undefined || name === this.options.keyRingSecret ? {} : { ownerReferences: [this.options.owner] }),
      },
      ...(kind === 'Secret' ? { type: 'Opaque' } : {}),
      data,
    };
  }

  async #write(kind: 'Secret' | 'ConfigMap', namespace: string, name: string, component: string, actual: KubeObject | undefined, data: Record<string, string>, annotations?: Record<string, string>): Promise<boolean> {
    if (actual === undefined && Object.keys(data).length === 0) return false;
    const informer: Informer = kind === 'ConfigMap' ? this.options.configMaps : name === this.options.keyRingSecret ? this.options.keyRings : this.options.apiKeyDigests;
    const { outcome } = await applyObject(this.options.client, kind, this.#shared(kind, namespace, name, component, data, annotations), actual, dataRules, (object) => informer.observe(object));
    return outcome !== 'unchanged';
  }

  async reconcile(key: string): Promise<ReconcileResult | undefined> {
    const { namespace, name } = splitKey(key);
    const options = this.options;
    const now = options.clock.now();
    const tenant = options.tenants.get(namespace, name) as unknown as Tenant | undefined;
    const liveTenants = options.tenants.list(namespace).filter((candidate) => candidate.metadata.deletionTimestamp === undefined);
    const liveFiles = new Set(liveTenants.map((candidate) => tenantFileName(candidate.metadata.name)));
    const file = tenantFileName(name);
    const keyRings = options.keyRings.get(namespace, options.keyRingSecret);
    const apiKeys = options.apiKeyDigests.get(namespace, options.apiKeysSecret);
    const settings = options.configMaps.get(namespace, options.tenantsConfigMap);

    if (tenant === undefined || tenant.metadata.deletionTimestamp !== undefined) {
      // Gone: remove its files (the Secrets hold no other copy; its sessions end with it).
      const handled = { [HANDLED_ROTATE_AT_ANNOTATION]: JSON.stringify(withHandled(handledMap(keyRings), file, undefined, liveFiles)) };
      await this.#write('Secret', namespace, options.keyRingSecret, 'key-rings', keyRings, editSharedData(keyRings?.data, file, undefined, liveFiles), handled);
      await this.#write('Secret', namespace, options.apiKeysSecret, 'api-keys', apiKeys, editSharedData(apiKeys?.data, file, undefined, liveFiles));
      await this.#write('ConfigMap', namespace, options.tenantsConfigMap, 'tenants', settings, editSharedData(settings?.data, file, undefined, liveFiles));
      return undefined;
    }

    const tenantId = tenant.spec.tenantId;
    const ringRead = readRing(secretText(keyRings?.data, file), file, tenantId);
    let plan: RotationPlan | undefined;
    const conditions: ConditionInput[] = [];
    if (ringRead.state === 'unreadable') {
      // Fail closed: never overwrite a ring we cannot read (it may hold the only copy of keys
      // that open live sessions). A human must repair or delete the file.
      conditions.push({ type: TENANT_CONDITIONS.KeysPublished, status: 'False', reason: 'KeyRingUnreadable', message: `key-ring file left untouched: ${ringRead.problems.join('; ')}` });
    } else {
      let generated: RingKey | undefined;
      const newKey = (): RingKey => (generated ??= (options.newKey ?? generateKey)(now));
      const input = {
        nowMs: now,
        sessionKeys: tenant.spec.sessionKeys,
        ring: ringRead.state === 'ok' ? ringRead.ring : undefined,
        status: tenant.status,
        sessionTtlMs: options.sessionTtlMs,
        newKey,
        ...(handledMap(keyRings)[file] === undefined ? {} : { handledRotateAt: handledMap(keyRings)[file] }),
        ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      };
      plan = planRotation({ ...input, replicas: undefined });
      if (plan.needsReplicas) plan = planRotation({ ...input, replicas: await this.#observe(tenantId) });
      const handled = { [HANDLED_ROTATE_AT_ANNOTATION]: JSON.stringify(withHandled(handledMap(keyRings), file, plan.rotation.lastRotateAt, liveFiles)) };
      const ringData = plan.ringChanged ? toSecretData(renderRing(tenantId, plan.ring)) : keyRings?.data?.[file];
      await this.#write('Secret', namespace, options.keyRingSecret, 'key-rings', keyRings, editSharedData(keyRings?.data, file, ringData, liveFiles), handled);
      if (plan.ringChanged) {
        options.logger.info('key ring written', { tenant: name, generation: plan.ring.generation, current_kid: plan.ring.current_kid, kids: plan.ring.keys.map((ringKey) => ringKey.kid), phase: plan.rotation.phase });
      }
      const rotationNote = plan.waiting === undefined ? '' : `; rotation ${plan.rotation.phase}: ${plan.waiting.message}`;
      conditions.push(
        plan.problems.length > 0
          ? { type: TENANT_CONDITIONS.KeysPublished, status: 'True', reason: 'Published', message: `key-ring generation ${plan.ring.generation} published; ignored: ${plan.problems.join('; ')}${rotationNote}` }
          : { type: TENANT_CONDITIONS.KeysPublished, status: 'True', reason: 'Published', message: `key-ring generation ${plan.ring.generation} published in Secret ${options.keyRingSecret}${rotationNote}` },
      );
    }

    const secretLookup = (secretName: string): Readonly<Record<string, string>> | undefined => options.tenantKeySecrets.get(options.tenantKeysNamespace, secretName)?.data;
    const keysPlan = planApiKeys(tenant, secretLookup, secretText(apiKeys?.data, file), file, options.tenantKeysNamespace);
    await this.#write('Secret', namespace, options.apiKeysSecret, 'api-keys', apiKeys, editSharedData(apiKeys?.data, file, toSecretData(keysPlan.text), liveFiles));
    const settingsText = planSettings(tenant, settings?.data?.[file], file);
    await this.#write('ConfigMap', namespace, options.tenantsConfigMap, 'tenants', settings, editSharedData(settings?.data, file, settingsText, liveFiles));

    conditions.push(
      keysPlan.problems.length === 0
        ? { type: TENANT_CONDITIONS.ApiKeysResolved, status: 'True', reason: 'Resolved', message: `${keysPlan.count} API key digests published in Secret ${options.apiKeysSecret}` }
        : { type: TENANT_CONDITIONS.ApiKeysResolved, status: 'False', reason: 'UnresolvedReferences', message: `${keysPlan.count} published; left out: ${keysPlan.problems.join('; ')}` },
    );
    const ready = plan !== undefined && keysPlan.problems.length === 0;
    conditions.unshift(
      ready
        ? { type: TENANT_CONDITIONS.Ready, status: 'True', reason: 'Reconciled', message: 'key ring, API keys and settings are published' }
        : { type: TENANT_CONDITIONS.Ready, status: 'False', reason: plan === undefined ? 'KeyRingUnreadable' : 'UnresolvedApiKeys', message: 'see the other conditions' },
    );

    // Events describe what was just written; recorded before the status patch, so a status
    // conflict (retried, and then planned from the ring as written) cannot lose them.
    for (const event of plan?.events ?? []) await options.events.record(tenant as unknown as KubeObject, event.type, event.reason, event.message);

    const previous = tenant.status;
    const status: TenantStatus = {
      ...(tenant.metadata.generation === undefined ? {} : { observedGeneration: tenant.metadata.generation }),
      ...(plan === undefined
        ? {
            ...(previous?.currentKid === undefined ? {} : { currentKid: previous.currentKid }),
            ...(previous?.keyRingGeneration === undefined ? {} : { keyRingGeneration: previous.keyRingGeneration }),
            ...(previous?.keys === undefined ? {} : { keys: previous.keys }),
            ...(previous?.rotation === undefined ? {} : { rotation: previous.rotation }),
          }
        : { currentKid: plan.ring.current_kid, keyRingGeneration: plan.ring.generation, keys: plan.keys, rotation: plan.rotation }),
      conditions: setConditions(previous?.conditions, conditions, tenant.metadata.generation, now),
    };
    await patchStatusIfChanged(options.client, 'Tenant', tenant as unknown as KubeObject, status, (object) => options.tenants.observe(object));
    options.onPhase?.(key, status.rotation?.phase ?? 'Idle');
    return plan?.requeueAfterMs === undefined ? undefined : { requeueAfterMs: plan.requeueAfterMs };
  }

  async #observe(tenantId: string): Promise<ReplicaObservation> {
    const survey = await this.options.reporter.survey();
    if ('error' in survey) return { error: survey.error };
    return {
      replicas: survey.replicas.map((replica) => {
        const loaded = replica.rings?.get(tenantId);
        return {
          name: replica.name,
          ...(loaded === undefined ? {} : { loaded }),
          ...(replica.error !== undefined ? { error: replica.error } : loaded === undefined ? { error: 'reports no key ring for this tenant' } : {}),
        };
      }),
    };
  }
}
