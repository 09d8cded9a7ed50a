// The operator process against the simulator: settings from the environment, leader election
// on, /healthz and /metrics answering, a graceful stop that deletes the Lease it held, and a
// taken health port reported as a startup error.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from './controllers/runtime.js';
import type { Lease } from './kube/types.js';
import { SettingsError, StartupError, startOperatorProcess, type OperatorProcess } from './process.js';
import { crdValidators } from '../test/sim/crd-validation.js';
import { ApiSimulator } from '../test/sim/server.js';
import { waitFor } from '../test/support/world.js';

let simulator: ApiSimulator | undefined;
let running: OperatorProcess | undefined;

afterEach(async () => {
  await running?.stop();
  await simulator?.stop();
  running = undefined;
  simulator = undefined;
});

describe('veil-operator process', () => {
  it('serves /healthz and /metrics while leading, and releases the lease on stop', async () => {
    simulator = await ApiSimulator.start({ validators: crdValidators(), namespaces: ['veil'] });
    running = await startOperatorProcess({
      env: { VEIL_OPERATOR_NAMESPACE: 'veil', POD_NAME: 'veil-operator-0' },
      kubeconfigYaml: simulator.kubeconfig('veil'),
      logger: silentLogger,
      healthHost: '127.0.0.1',
      healthPort: 0,
      operatorOverrides: { lease: { durationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 } },
    });
    const process = running;
    await waitFor(() => process.operator.active);
    await process.operator.settled();
    const health = await fetch(`${process.healthUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', leader: true, reconciling: true });
    expect(simulator.peek<Lease>('Lease', 'veil', 'veil-operator')?.spec?.holderIdentity).toBe('veil-operator-0');

    simulator.seed('Tenant', { apiVersion: 'veil.dev/v1alpha1', kind: 'Tenant', metadata: { name: 'acme', namespace: 'veil', generation: 1 }, spec: { tenantId: 'acme' } });
    await waitFor(async () => (await (await fetch(`${process.healthUrl}/metrics`)).text()).includes('veil_operator_reconcile_total{controller="tenant",result="success"}'));
    const metrics = await (await fetch(`${process.healthUrl}/metrics`)).text();
    expect(metrics).toContain('veil_operator_leader 1');
    expect(metrics).toMatch(/veil_operator_informer_lists_total\{kind="Tenant"\} [1-9]/);
    expect(metrics).toContain('veil_operator_rotation_phase{tenant="veil/acme",phase="Idle"} 1');

    await process.stop();
    running = undefined;
    expect(simulator.peek<Lease>('Lease', 'veil', 'veil-operator')).toBeUndefined();
    await expect(fetch(`${process.healthUrl}/healthz`)).rejects.toThrow();
  });

  it('reports a taken health port as a startup error, before campaigning', async () => {
    simulator = await ApiSimulator.start({ validators: crdValidators(), namespaces: ['veil'] });
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const attempt = startOperatorProcess({ env: { VEIL_OPERATOR_NAMESPACE: 'veil', POD_NAME: 'veil-operator-0' }, kubeconfigYaml: simulator.kubeconfig('veil'), logger: silentLogger, healthHost: '127.0.0.1', healthPort: port });
      await expect(attempt).rejects.toSatisfy((error: unknown) => error instanceof StartupError && error.message === `health port ${port} is already in use (VEIL_OPERATOR_HEALTH_PORT)`);
      expect(simulator.peek<Lease>('Lease', 'veil', 'veil-operator')).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('refuses to start with invalid settings, naming the variables', async () => {
    await expect(startOperatorProcess({ env: { VEIL_OPERATOR_SERVER_PORT: 'x' }, kubeconfigYaml: 'apiVersion: v1\nkind: Config\n', logger: silentLogger })).rejects.toSatisfy(
      (error: unknown) => error instanceof SettingsError && error.problems.some((problem) => problem.startsWith('VEIL_OPERATOR_NAMESPACE')) && error.problems.some((problem) => problem.startsWith('VEIL_OPERATOR_SERVER_PORT')),
    );
  });
});
