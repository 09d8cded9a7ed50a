// NER sidecar controller. One key (the namespace): bring the Deployment and then the Service
// (owned by the Deployment's current uid) to their desired shape, reverting drift in any field
// we set. The API-key Secret belongs to the chart; the operator only references it.
import type { KubeClient } from '../../kube/client.js';
import type { Informer } from '../../kube/informer.js';
import type { KubeObject } from '../../kube/types.js';
import { applyObject, specRules, type Logger, type PayloadRules, type ReconcileResult, type Reconciler } from '../runtime.js';
import { desiredNerDeployment, desiredNerService, type NerSettings } from './desired.js';

/** Services: like specRules, but the cluster-allocated addresses are kept (they are immutable). */
const serviceRules: PayloadRules<KubeObject> = {
  matches: (desired, actual) => specRules.matches(desired, actual),
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
      readonly deployments: Informer;
      readonly services: Informer;
      readonly logger: Logger;
    },
  ) {}

  async reconcile(): Promise<ReconcileResult | undefined> {
    const { client, settings, logger } = this.options;
    const { namespace, name } = settings;
    const deployment = await applyObject(client, 'Deployment', desiredNerDeployment(settings), this.options.deployments.get(namespace, name), specRules);
    if (deployment.outcome !== 'unchanged') logger.info('NER deployment applied', { deployment: name, outcome: deployment.outcome });
    const uid = deployment.object.metadata.uid;
    const service = await applyObject(client, 'Service', desiredNerService(settings, uid === undefined ? undefined : { uid }), this.options.services.get(namespace, name), serviceRules);
    if (service.outcome !== 'unchanged') logger.info('NER service applied', { service: name, outcome: service.outcome });
    return undefined;
  }
}
