// TokenizationPolicy controller. Its key is a namespace: all policies of a namespace render into
// one ConfigMap (the server's policy.directory), so the server sees one atomic `..data` swap per
// change instead of a file at a time. Reconcile reads the informer caches, plans purely
// (desired.ts), writes the ConfigMap if it differs, then patches each policy's status if it
// changed. The ConfigMap is written before any status says Published, so Published=True always
// describes the cluster as it is.
import { VEIL_ANNOTATIONS, type TokenizationPolicy, type TokenizationPolicyStatus } from '@veil/common';
import type { KubeClient } from '../../kube/client.js';
import type { Clock } from '../../kube/clock.js';
import type { Informer } from '../../kube/informer.js';
import type { ConfigMap, KubeObject, OwnerReference } from '../../kube/types.js';
import { applyObject, dataRules, MANAGED_BY_LABELS, patchStatusIfChanged, type EventRecorder, type Logger, type ReconcileResult, type Reconciler } from '../runtime.js';
import { planPolicyDirectory } from './desired.js';

export interface PolicyControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly policies: Informer;
  readonly configMaps: Informer<ConfigMap>;
  readonly configMapName: string;
  readonly events: EventRecorder;
  readonly logger: Logger;
  /** Owner of the rendered ConfigMap (the operator's Deployment), when known. */
  readonly owner?: OwnerReference;
}

export class PolicyController implements Reconciler {
  readonly name = 'tokenizationpolicy';

  constructor(private readonly options: PolicyControllerOptions) {}

  /** The work-queue key for a policy or ConfigMap event: its namespace. */
  static keyFor(object: { metadata: { namespace?: string } }): string {
    return object.metadata.namespace ?? '';
  }

  async reconcile(namespace: string): Promise<ReconcileResult | undefined> {
    const { client, clock, configMapName } = this.options;
    const policies = this.options.policies.list(namespace) as unknown as TokenizationPolicy[];
    const actual = this.options.configMaps.get(namespace, configMapName);
    const plan = planPolicyDirectory({ namespace, configMapName, policies, current: actual?.data, nowMs: clock.now() });

    // Nothing declared and nothing rendered yet: do not create an empty directory.
    if (actual !== undefined || Object.keys(plan.files).length > 0) {
      const desired: ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: configMapName,
          namespace,
          labels: { ...MANAGED_BY_LABELS, 'app.kubernetes.io/component': 'policies' },
          annotations: { [VEIL_ANNOTATIONS.contentHash]: plan.contentHash },
          ...(this.options.owner === undefined ? {} : { ownerReferences: [this.options.owner] }),
        },
        data: plan.files,
      };
      const { outcome } = await applyObject(client, 'ConfigMap', desired, actual, dataRules, (object) => this.options.configMaps.observe(object));
      if (outcome !== 'unchanged') this.options.logger.info('policy directory written', { namespace, configmap: configMapName, outcome, files: Object.keys(plan.files).length, content_hash: plan.contentHash });
    }

    for (const policy of policies) {
      const status: TokenizationPolicyStatus | undefined = plan.statuses.get(policy.metadata.name);
      if (status === undefined) continue;
      await patchStatusIfChanged(client, 'TokenizationPolicy', policy as unknown as KubeObject, status, (object) => this.options.policies.observe(object));
    }
    for (const event of plan.events) {
      const policy = policies.find((candidate) => candidate.metadata.name === event.policy);
      if (policy !== undefined) await this.options.events.record(policy as unknown as KubeObject, event.type, event.reason, event.message);
    }
    return undefined;
  }
}
