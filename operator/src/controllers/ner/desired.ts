// Pure desired state of the NER sidecar (veil-ner): a Deployment and a ClusterIP Service in
// front of it (owned by the Deployment, so removing one removes both). The sidecar's API key
// comes from a Secret the chart creates (the servers read the same one as detector.api_key),
// mounted as a directory and named by VEIL_NER_API_KEY_FILE. Only fields we set are compared,
// so API-server defaults never count as drift; a change to any field we set is reverted.
import type { KubeObject, OwnerReference } from '../../kube/types.js';
import { MANAGED_BY_LABELS } from '../runtime.js';

export const NER_API_KEY_FIELD = 'api-key';
const NER_API_KEY_DIR = '/var/run/veil/ner-api-key';

export interface NerSettings {
  readonly namespace: string;
  readonly name: string;
  readonly image: string;
  readonly replicas: number;
  readonly port: number;
  /** Secret with the sidecar's API key under `api-key`. */
  readonly apiKeySecret: string;
  readonly owner?: OwnerReference;
}

export function nerSelectorLabels(name: string): Record<string, string> {
  return { 'app.kubernetes.io/name': name, 'app.kubernetes.io/component': 'ner' };
}

export function desiredNerDeployment(settings: NerSettings): KubeObject {
  const selector = nerSelectorLabels(settings.name);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: settings.name,
      namespace: settings.namespace,
      labels: { ...MANAGED_BY_LABELS, ...selector },
      ...(settings.owner === undefined ? {} : { ownerReferences: [settings.owner] }),
    },
    spec: {
      replicas: settings.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...MANAGED_BY_LABELS, ...selector } },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          // A whole-directory Secret mount (never subPath), so a rotated key reaches the file.
          volumes: [{ name: 'api-key', secret: { secretName: settings.apiKeySecret, items: [{ key: NER_API_KEY_FIELD, path: NER_API_KEY_FIELD }] } }],
          containers: [
            {
              name: 'ner',
              image: settings.image,
              ports: [{ name: 'http', containerPort: settings.port, protocol: 'TCP' }],
              env: [
                { name: 'VEIL_NER_HOST', value: '0.0.0.0' },
                { name: 'VEIL_NER_PORT', value: String(settings.port) },
                { name: 'VEIL_NER_API_KEY_FILE', value: `${NER_API_KEY_DIR}/${NER_API_KEY_FIELD}` },
              ],
              volumeMounts: [{ name: 'api-key', mountPath: NER_API_KEY_DIR, readOnly: true }],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 5, failureThreshold: 3 },
              livenessProbe: { httpGet: { path: '/livez', port: 'http' }, periodSeconds: 10, failureThreshold: 6 },
              resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1Gi' } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    },
  };
}

export function desiredNerService(settings: NerSettings, deployment: { uid: string } | undefined): KubeObject {
  const selector = nerSelectorLabels(settings.name);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: settings.name,
      namespace: settings.namespace,
      labels: { ...MANAGED_BY_LABELS, ...selector },
      ...(deployment === undefined
        ? {}
        : { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: settings.name, uid: deployment.uid, controller: true, blockOwnerDeletion: true }] }),
    },
    spec: {
      type: 'ClusterIP',
      selector,
      ports: [{ name: 'http', port: settings.port, targetPort: 'http', protocol: 'TCP' }],
    },
  };
}
