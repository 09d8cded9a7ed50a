// The KubeClient conformance suite against the API simulator, through the real client
// (RealKubeClient) talking HTTP to it: the simulator must answer as the real API server does.
import { afterAll } from 'vitest';
import { ApiSimulator } from '../../test/sim/server.js';
import { crdValidators } from '../../test/sim/crd-validation.js';
import { kubeClientConformance } from './client.suite.js';
import { loadKubeConfig, RealKubeClient } from './real-client.js';

let simulator: ApiSimulator | undefined;

kubeClientConformance('simulator', async () => {
  simulator = await ApiSimulator.start({ validators: crdValidators(), namespaces: ['conformance'] });
  return { client: new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig('conformance') })), namespace: 'conformance', crdsInstalled: true };
});

afterAll(async () => {
  await simulator?.stop();
});
