// The kubelet stand-in writes a volume exactly as AtomicWriter does: payload directory, `..data`
// symlink swapped by rename, per-file symlinks through `..data`, stale payloads and removed
// files cleaned up; and the projector follows one Secret through the API.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadKubeConfig, RealKubeClient } from '../kube/real-client.js';
import { ApiSimulator } from '../../test/sim/server.js';
import { waitFor } from '../../test/support/world.js';
import { VolumeProjector, writeAtomically } from './volume.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'veil-volume-'));
  dirs.push(dir);
  return dir;
}

describe('writeAtomically', () => {
  it('lays files out behind ..data and swaps the whole payload at once', async () => {
    const dir = tempDir();
    await writeAtomically(dir, { 'a.json': Buffer.from('1'), 'b.json': Buffer.from('2') });
    const first = readlinkSync(join(dir, '..data'));
    expect(readlinkSync(join(dir, 'a.json'))).toBe(join('..data', 'a.json'));
    await writeAtomically(dir, { 'a.json': Buffer.from('3') });
    const second = readlinkSync(join(dir, '..data'));
    expect(second).not.toBe(first);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('3');
    expect(readdirSync(dir).sort()).toEqual(['..data', second, 'a.json'].sort());
    await expect(writeAtomically(dir, { '../escape': Buffer.from('x') })).rejects.toThrow('unsafe file name');
  });
});

describe('VolumeProjector', () => {
  it('projects a Secret (decoded) and follows its updates', async () => {
    const simulator = await ApiSimulator.start({ namespaces: ['veil'] });
    try {
      const client = new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig('veil') }));
      const dir = tempDir();
      const projector = new VolumeProjector({ client, kind: 'Secret', namespace: 'veil', name: 'rings', dir });
      await projector.start();
      expect(readdirSync(dir).filter((entry) => !entry.startsWith('..'))).toEqual([]);
      const created = await client.create('Secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'rings', namespace: 'veil' }, data: { 'x.json': Buffer.from('{"v":1}').toString('base64') } });
      await waitFor(() => {
        try {
          return readFileSync(join(dir, 'x.json'), 'utf8') === '{"v":1}';
        } catch {
          return false;
        }
      });
      await client.replace('Secret', { ...created, data: { 'y.json': Buffer.from('{"v":2}').toString('base64') } });
      await waitFor(() => readdirSync(dir).includes('y.json') && !readdirSync(dir).includes('x.json'));
      projector.stop();
    } finally {
      await simulator.stop();
    }
  });
});
