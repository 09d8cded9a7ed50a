// Informer recovery against the simulator with the real client: the cache follows changes,
// survives a dropped watch (resume from the last version), relists on 410 Gone, relists
// periodically (a resync reports every key), and retries a failed list.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiSimulator } from '../../test/sim/server.js';
import { until } from '../../test/support/until.js';
import { Informer } from './informer.js';
import { loadKubeConfig, RealKubeClient } from './real-client.js';
import type { ConfigMap } from './types.js';

let simulator: ApiSimulator;
let client: RealKubeClient;
let informer: Informer<ConfigMap> | undefined;

beforeEach(async () => {
  simulator = await ApiSimulator.start({ namespaces: ['ns'] });
  client = new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig('ns') }));
});

afterEach(async () => {
  informer?.stop();
  informer = undefined;
  await simulator.stop();
});

const make = (name: string, value: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { value } });

async function put(name: string, value: string): Promise<void> {
  const current = await client.get<ConfigMap>('ConfigMap', 'ns', name);
  if (current === undefined) await client.create('ConfigMap', make(name, value));
  else await client.replace('ConfigMap', { ...current, data: { value } });
}

function start(options: { relistIntervalMs?: number } = {}): string[] {
  const keys: string[] = [];
  informer = new Informer<ConfigMap>(client, 'ConfigMap', { namespace: 'ns', retryBaseMs: 20, retryMaxMs: 100, ...options });
  informer.onChange((key) => keys.push(key));
  informer.start();
  return keys;
}

describe('Informer', () => {
  it('lists, then follows creates, updates and deletes', async () => {
    await put('a', '1');
    const keys = start();
    await informer!.waitForSync();
    expect(informer!.get('ns', 'a')?.data).toEqual({ value: '1' });
    await put('a', '2');
    await put('b', '1');
    await client.delete('ConfigMap', 'ns', 'a');
    await until(() => informer!.get('ns', 'a') === undefined && informer!.get('ns', 'b') !== undefined);
    expect(keys).toContain('ns/b');
  });

  it('resumes after a dropped watch without a relist and misses nothing', async () => {
    start();
    await informer!.waitForSync();
    await until(() => simulator.openWatches === 1);
    simulator.dropWatches();
    await put('during', 'x');
    await until(() => informer!.get('ns', 'during') !== undefined);
    expect(informer!.stats.lists).toBe(1);
    expect(informer!.stats.watches).toBeGreaterThanOrEqual(2);
  });

  it('relists on 410 Gone and reconciles the cache with what changed meanwhile', async () => {
    await put('old', '1');
    start();
    await informer!.waitForSync();
    await until(() => simulator.openWatches === 1);
    // Changes happen while the watch is down, then history is compacted: resuming gets 410.
    simulator.failNext(3, { status: 500, watch: true });
    simulator.dropWatches();
    await client.delete('ConfigMap', 'ns', 'old');
    await put('new', '1');
    simulator.compact();
    await until(() => informer!.get('ns', 'new') !== undefined && informer!.get('ns', 'old') === undefined);
    expect(informer!.stats.relistsOnGone).toBeGreaterThanOrEqual(1);
  });

  it('relists periodically and reports every key again (resync)', async () => {
    await put('a', '1');
    const keys = start({ relistIntervalMs: 100 });
    await informer!.waitForSync();
    await until(() => keys.filter((key) => key === 'ns/a').length >= 3);
    expect(informer!.stats.lists).toBeGreaterThanOrEqual(3);
  });

  it('retries a failed initial list with backoff', async () => {
    await put('a', '1');
    simulator.failNext(2, { status: 503, methods: ['GET'] });
    start();
    await informer!.waitForSync();
    expect(informer!.stats.lists).toBe(3);
    expect(informer!.get('ns', 'a')).toBeDefined();
  });
});
