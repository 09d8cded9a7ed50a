// The operator's own credential for the servers' /v1/diagnostics (admin scope), which rotation
// needs when the servers authenticate with API keys. The raw key lives in a Secret only the
// operator reads; the API-key directory the servers mount gets its SHA-256 digest as the
// tenant-less file `_veil-operator.json` (layout.ts keeps `_` files out of any tenant's sweep).
// Created once, never rotated implicitly: deleting the Secret makes a new key.
import { randomBytes } from 'node:crypto';
import { apiKeyDigest, serializeApiKeysFile } from '@veil/common';
import type { KubeClient } from '../kube/client.js';
import type { Informer } from '../kube/informer.js';
import type { OwnerReference, Secret } from '../kube/types.js';
import { applyObject, dataRules, MANAGED_BY_LABELS, type ReconcileResult, type Reconciler } from './runtime.js';
import { secretText, toSecretData } from './tenant/desired.js';

export const OPERATOR_KEY_FILE = '_veil-operator.json';
export const OPERATOR_KEY_FIELD = 'api-key';

export function operatorCredentialSecretName(apiKeysSecret: string): string {
  return `${apiKeysSecret}-operator`;
}

export class CredentialsController implements Reconciler {
  readonly name = 'credentials';

  constructor(
    private readonly options: {
      readonly client: KubeClient;
      readonly namespace: string;
      readonly apiKeysSecret: string;
      readonly secrets: Informer<Secret>;
      readonly owner?: OwnerReference;
    },
  ) {}

  /** The raw key, for the replica reporter (undefined until the Secret exists). */
  apiKey(): string | undefined {
    const secret = this.options.secrets.get(this.options.namespace, operatorCredentialSecretName(this.options.apiKeysSecret));
    return secretText(secret?.data, OPERATOR_KEY_FIELD);
  }

  async reconcile(): Promise<ReconcileResult | undefined> {
    const { client, namespace, apiKeysSecret, owner } = this.options;
    const name = operatorCredentialSecretName(apiKeysSecret);
    const ownerRefs = owner === undefined ? {} : { ownerReferences: [owner] };
    let key = this.apiKey();
    if (key === undefined) {
      const existing = await client.get<Secret>('Secret', namespace, name);
      key = secretText(existing?.data, OPERATOR_KEY_FIELD);
      if (key === undefined) {
        key = randomBytes(32).toString('hex');
        await client.create<Secret>('Secret', {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace, labels: { ...MANAGED_BY_LABELS, 'app.kubernetes.io/component': 'operator' }, ...ownerRefs },
          type: 'Opaque',
          data: { [OPERATOR_KEY_FIELD]: toSecretData(key) },
        });
      }
    }
    const actual = this.options.secrets.get(namespace, apiKeysSecret);
    const file = serializeApiKeysFile({ generation: 1, keys: [{ identity: 'veil-operator', key_sha256: apiKeyDigest(key), scopes: ['admin'] }] });
    if (secretText(actual?.data, OPERATOR_KEY_FILE) === file) return undefined;
    await applyObject(
      client,
      'Secret',
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: apiKeysSecret, namespace, labels: { ...MANAGED_BY_LABELS, 'app.kubernetes.io/component': 'api-keys' }, ...ownerRefs },
        type: 'Opaque',
        data: { ...(actual?.data ?? {}), [OPERATOR_KEY_FILE]: toSecretData(file) },
      },
      actual,
      dataRules,
    );
    return undefined;
  }
}
