// The KubeClient conformance suite against a real cluster, when VEIL_TEST_KUBECONFIG names a
// kubeconfig (kind, k3d, any test cluster). Namespace: VEIL_TEST_NAMESPACE or `default`. The
// custom-resource cases need the Veil CRDs installed (`kubectl apply -f crds/`) and are skipped
// with that reason otherwise.
import { describe, it } from 'vitest';
import { isNotFound } from './types.js';
import { kubeClientConformance } from './client.suite.js';
import { loadKubeConfig, RealKubeClient } from './real-client.js';

const kubeconfigPath = process.env.VEIL_TEST_KUBECONFIG;

if (kubeconfigPath === undefined || kubeconfigPath === '') {
  describe('KubeClient conformance: real cluster', () => {
    it.skip('skipped: set VEIL_TEST_KUBECONFIG to a test cluster kubeconfig to run the suite against a real API server', () => undefined);
  });
} else {
  kubeClientConformance('real cluster', async () => {
    const client = new RealKubeClient(loadKubeConfig({ kubeconfigPath }));
    const namespace = process.env.VEIL_TEST_NAMESPACE ?? 'default';
    const crdsInstalled = await client.list('Tenant', namespace).then(
      () => true,
      (error: unknown) => {
        if (isNotFound(error)) return false;
        throw error;
      },
    );
    return { client, namespace, crdsInstalled };
  });
}
