// Replica reporters: the Pod reporter asks only ready Pods matching the selector (on their Pod
// IP, with the operator's credential), reports a non-answering replica with the reason, and
// parses the server's /v1/diagnostics key_rings shape.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadKubeConfig, RealKubeClient } from '../kube/real-client.js';
import type { Pod } from '../kube/types.js';
import { ApiSimulator } from '../../test/sim/server.js';
import { parseDiagnostics, PodReplicaReporter, UrlReplicaReporter } from './reporter.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function diagnosticsServer(body: unknown, seen: string[]): Promise<number> {
  const server: Server = createServer((request, response) => {
    seen.push(String(request.headers['x-api-key'] ?? ''));
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

function pod(name: string, labels: Record<string, string>, ready: boolean, ip = '127.0.0.1'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'veil', labels },
    status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

describe('parseDiagnostics', () => {
  it('reads key_rings by tenant, the platform ring under the empty name, and ignores anything else', () => {
    const rings = parseDiagnostics({ key_rings: [{ tenant: null, generation: 'aaaa' }, { tenant: 'acme', generation: 'bbbb' }, { tenant: 7, generation: 'x' }, 'junk'], other: 1 });
    expect([...rings]).toEqual([
      ['', 'aaaa'],
      ['acme', 'bbbb'],
    ]);
    expect(parseDiagnostics({ policies: [] }).size).toBe(0);
    expect(parseDiagnostics('nope').size).toBe(0);
  });
});

describe('PodReplicaReporter', () => {
  it('asks every ready server Pod, and only those, with the credential', async () => {
    const seen: string[] = [];
    const port = await diagnosticsServer({ key_rings: [{ tenant: 'acme', generation: 'cafe' }] }, seen);
    const simulator = await ApiSimulator.start({ namespaces: ['veil'] });
    closers.push(() => simulator.stop());
    const labels = { 'app.kubernetes.io/name': 'veil', 'app.kubernetes.io/component': 'server' };
    simulator.seed('Pod', pod('veil-0', labels, true));
    simulator.seed('Pod', pod('veil-1', labels, false));
    simulator.seed('Pod', pod('other', { 'app.kubernetes.io/name': 'other' }, true));
    const client = new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig('veil') }));
    const reporter = new PodReplicaReporter(client, 'veil', 'app.kubernetes.io/name=veil,app.kubernetes.io/component=server', port, { apiKey: () => Promise.resolve('operator-key') });
    const survey = await reporter.survey();
    expect(survey).toEqual({ replicas: [{ name: 'veil-0', rings: new Map([['acme', 'cafe']]) }] });
    expect(seen).toEqual(['operator-key']);
  });

  it('reports a listing failure, and a replica that does not answer, without confirming anything', async () => {
    const simulator = await ApiSimulator.start({ namespaces: ['veil'] });
    closers.push(() => simulator.stop());
    const client = new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig('veil') }));
    simulator.failNext(1, { status: 500, kinds: ['Pod'] });
    expect(await new PodReplicaReporter(client, 'veil', 'a=b', 1).survey()).toEqual({ error: 'cannot list Pods with selector a=b' });
    const unreachable = await new UrlReplicaReporter(() => [{ name: 'gone', url: 'http://127.0.0.1:1' }], { timeoutMs: 500 }).survey();
    expect(unreachable).toEqual({ replicas: [{ name: 'gone', error: 'diagnostics unreachable' }] });
  });
});
