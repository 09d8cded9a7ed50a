// NER sidecar controller. One key (the namespace): bring the Deployment and then the Service
// (owned by the Deployment's current uid) to their desired shape, reverting drift in any field
// we set (server-side apply). The API-key Secret belongs to the chart; the operator only references it.
import type { KubeClient } from '../../kube/client.js';
import type { Informer } from '../../kube/informer.js';
import { applyObject, specRules, type Logger, type ReconcileResult, type Reconciler } from '../runtime.js';
import { desiredNerDeployment, desiredNerService, type NerSettings } from './desired.js';

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
    const { deployments, services } = this.options;
    const deployment = await applyObject(client, 'Deployment', desiredNerDeployment(settings), deployments.get(namespace, name), specRules, (object) => deployments.observe(object));
    if (deployment.outcome !== 'unchanged') logger.info('NER deployment applied', { deployment: name, outcome: deployment.outcome });
    const uid = deployment.object.metadata.uid;
    // The cluster-allocated addresses (clusterIP, ...) are not in the applied spec, so they stay.
    const service = await applyObject(client, 'Service', desiredNerService(settings, uid === undefined ? undefined : { uid }), services.get(namespace, name), specRules, (object) => services.observe(object));
    if (service.outcome !== 'unchanged') logger.info('NER service applied', { service: name, outcome: service.outcome });
    return undefined;
  }
}
