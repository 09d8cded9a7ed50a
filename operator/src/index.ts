// @veil/operator: the Veil Kubernetes operator. The process lives in main.ts; these exports let
// the end-to-end suites and tools drive the pieces (operator, volume projector). The API
// simulator of the fault-injection tests lives in operator/test/sim/ and is not shipped.
export const OPERATOR_NAME = 'veil-operator';
export { Operator, type OperatorOptions } from './operator.js';
export { startOperatorProcess, type OperatorProcess } from './process.js';
export { VolumeProjector, writeAtomically } from './render/volume.js';
export { UrlReplicaReporter, PodReplicaReporter, parseDiagnostics, type ReplicaReporter } from './replicas/reporter.js';
export { loadKubeConfig, RealKubeClient } from './kube/real-client.js';
export type { KubeClient } from './kube/client.js';
export { ringFingerprint } from './controllers/tenant/rotation.js';
