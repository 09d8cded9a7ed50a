// NER sidecar controller. One key (the namespace): make the sidecar's API-key Secret exist
// (generated once, never rewritten, since the servers hold the same key), then bring the
// Deployment and the Service to their desired shape, reverting drift in any field we set.
import { randomBytes } from 'node:crypto';
import type { KubeClient } from '../../kube/client.js';
import type { Informer } from '../../kube/informer.js';
import type { KubeObject, Secret } from '../../kube/types.js';
import { applyObject, MANAGED_BY_LABELS, specRules, type Logger, type PayloadRules, type ReconcileResult, type Reconciler } from '../runtime.js';
import { desiredNerDeployment, desiredNerService, NER_API_KEY_FIELD, nerApiKeySecretName, type NerSettings } from './desired.js';

/** Services: like specRules, but the cluster-allocated addresses are kept (they are immutable). */
const serviceRules: PayloadRules<KubeObject> = {
  matches: specRules.matches,
  merge: (desired, actual) => {
    const actualSpec = (actual.spec ?? {}) as Record<string, unknown>;
    const kept = Object.fromEntries(['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'].filter((field) => actualSpec[field] !== undefined).map((field) => [field, actualSpec[field]]));
    return { ...actual, spec: { ...kept, ...(desired.spec as Record<string, unknown>) } };
  },
};

export class NerController implements Reconciler {
  readonly name = 'ner';

  constructor(
    private readonly options: {
      readonly client: KubeClient;
      readonly settings: NerSettings;
      readonly deployments: Informer<KubeObject>;
      readonly services: Informer<KubeObject>;
      readonly secrets: Informer<Secret>;
      readonly logger: Logger;
    },
  ) {}

  async reconcile(): Promise<ReconcileResult | undefined> {
    const { client, settings, logger } = this.options;
    const { namespace, name } = settings;
    const secretName = nerApiKeySecretName(name);
    if (this.options.secrets.get(namespace, secretName) === undefined && (await client.get('Secret', namespace, secretName)) === undefined) {
      await client.create<Secret>('Secret', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secretName, namespace, labels: { ...MANAGED_BY_LABELS, 'app.kubernetes.io/component': 'ner' }, ...(settings.owner === undefined ? {} : { ownerReferences: [settings.owner] }) },
        type: 'Opaque',
        data: { [NER_API_KEY_FIELD]: Buffer.from(randomBytes(32).toString('hex'), 'utf8').toString('base64') },
      });
      logger.info('NER API key secret created', { secret: secretName });
    }
    const deployment = await applyObject(client, 'Deployment', desiredNerDeployment(settings), this.options.deployments.get(namespace, name), specRules);
    if (deployment.outcome !== 'unchanged') logger.info('NER deployment applied', { deployment: name, outcome: deployment.outcome });
    const uid = deployment.object.metadata.uid;
    const service = await applyObject(client, 'Service', desiredNerService(settings, uid === undefined ? undefined : { uid }), this.options.services.get(namespace, name), serviceRules);
    if (service.outcome !== 'unchanged') logger.info('NER service applied', { service: name, outcome: service.outcome });
    return undefined;
  }
}
