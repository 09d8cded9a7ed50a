// The three container images (images/*.Containerfile), built with buildah and run with podman as
// a cluster would run them: as uid 10001, read-only root file system, /tmp a tmpfs, host network
// on loopback. The server answers /livez and a transform/rehydrate round trip; the NER sidecar
// (models baked in) answers /livez and /readyz and detects a name; the operator starts against
// an API server (the simulator, reached over loopback), leads and reports healthy. The final
// stages carry no npm, pip or compiler. No registry is reachable here, so the builds use local
// stand-ins for the upstream base images (scripts/images.sh bases); the Containerfiles still name
// the upstream ones. Sizes are printed. Skipped, loudly, without buildah and podman (make
// image-tools installs them).
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdValidators } from '../operator/test/sim/crd-validation.js';
import { ApiSimulator } from '../operator/test/sim/server.js';
import { waitFor } from '../operator/test/support/world.js';
import { freePort } from '../server/test/support/redis.js';
import { run, type CommandResult } from './support/cluster.js';
import { postJson, ROOT } from './support/server.js';

const which = (tool: string): Promise<boolean> => run('bash', ['-c', `command -v ${tool}`]).then((result) => result.code === 0);
const available = (await which('buildah')) && (await which('podman'));
const reason = 'buildah and podman are not installed (make image-tools installs them from Debian)';

if (!available) {
  describe('container images', () => {
    it.skip(`SKIPPED: ${reason}`, () => undefined);
  });
} else {
  describe('container images', () => {
    const script = join(ROOT, 'scripts', 'images.sh');
    let env: Record<string, string> = {};
    let tag = '';
    const containers: string[] = [];
    const podman = (args: readonly string[]): Promise<CommandResult> => run('podman', args, { env, timeoutMs: 600_000 });
    /** Run an image detached the way a restricted pod runs it. */
    const start = async (image: string, args: readonly string[], extra: readonly string[] = []): Promise<string> => {
      const name = `veil-test-${randomBytes(4).toString('hex')}`;
      const result = await podman(['run', '-d', '--name', name, '--network', 'host', '--read-only', '--tmpfs', '/tmp', '--user', '10001:10001', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', ...extra, image, ...args]);
      expect(result.code, result.stderr).toBe(0);
      containers.push(name);
      return name;
    };
    const logs = async (name: string): Promise<string> => {
      const result = await podman(['logs', name]);
      return result.stdout + result.stderr;
    };

    beforeAll(async () => {
      const built = await run('bash', [script, 'build'], { env: { VEIL_IMAGES_LOCAL_BASES: '1' }, timeoutMs: 3_600_000 });
      if (built.code !== 0) throw new Error(`scripts/images.sh build failed (${built.code}):\n${built.stderr}`);
      process.stdout.write(`image sizes:\n${built.stdout}`);
      const described = (await run('bash', [script, 'env'])).stdout.trim();
      env = Object.fromEntries(described.split(' ').map((pair) => pair.split('=') as [string, string]));
      tag = env['TAG'] ?? '';
    }, 3_600_000);

    afterAll(async () => {
      for (const name of containers) await podman(['rm', '-f', name]);
    });

    it('runs every image as uid 10001 with no package manager or compiler in the final stage', async () => {
      for (const image of ['veil', 'veil-operator', 'veil-ner']) {
        const reference = `ghcr.io/veil-dev/${image}:${tag}`;
        expect((await podman(['image', 'inspect', reference, '--format', '{{.Config.User}}'])).stdout.trim(), image).toBe('10001:10001');
        const tools = await podman(['run', '--rm', '--entrypoint', 'sh', reference, '-c', 'for tool in npm npx pip pip3 gcc g++ cc make apt-get; do command -v $tool || true; done | grep -v apt-get || true']);
        expect(tools.stdout.trim(), image).toBe('');
      }
    }, 600_000);

    it('server: /livez, and a transform rehydrated back, on a read-only root file system', async () => {
      const port = await freePort();
      const name = await start(`ghcr.io/veil-dev/veil:${tag}`, ['serve', '--host', '127.0.0.1', '--port', String(port)]);
      const base = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${base}/livez`).catch(() => undefined))?.status === 200, 120_000, `the server container (${await logs(name)})`);
      const transformed = await postJson(`${base}/v1/transform`, { input: 'Write to jane.doe@example.com today' });
      expect(transformed.status, transformed.text).toBe(200);
      expect(transformed.body.safe_text).not.toContain('jane.doe@example.com');
      const restored = await postJson(`${base}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: transformed.body.session_state });
      expect(restored.status, restored.text).toBe(200);
      expect(JSON.stringify(restored.body)).toContain('jane.doe@example.com');
    }, 300_000);

    it('NER sidecar: /livez and /readyz with the baked-in models, and detects a name', async () => {
      const port = await freePort();
      const key = randomBytes(24).toString('hex');
      const name = await start(`ghcr.io/veil-dev/veil-ner:${tag}`, [], ['-e', 'VEIL_NER_HOST=127.0.0.1', '-e', `VEIL_NER_PORT=${port}`, '-e', `VEIL_NER_API_KEY=${key}`]);
      const base = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, 240_000, `the NER container (${await logs(name)})`);
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      const text = 'Angela Merkel visited Paris.';
      const detected = await postJson(`${base}/v1/detect`, { text, language: 'en' }, { 'x-detector-api-key': key });
      expect(detected.status, detected.text).toBe(200);
      // The sidecar answers offsets, never the text itself.
      const entities = (detected.body as { entities: { type: string; start: number; end: number }[] }).entities;
      expect(entities.filter((entity) => entity.type === 'person').map((entity) => text.slice(entity.start, entity.end))).toContain('Angela Merkel');
    }, 300_000);

    it('operator: starts against an API server, leads, and reports healthy', async () => {
      const simulator = await ApiSimulator.start({ validators: crdValidators(), namespaces: ['veil', 'veil-tenant-keys'] });
      try {
        const dir = mkdtempSync(join(tmpdir(), 'veil-operator-image-'));
        // mkdtemp makes it 0700 for root; the container runs as uid 10001 and must read it.
        chmodSync(dir, 0o755);
        writeFileSync(join(dir, 'kubeconfig'), simulator.kubeconfig('veil'), { mode: 0o644 });
        const port = await freePort();
        const name = await start(`ghcr.io/veil-dev/veil-operator:${tag}`, [], [
          '-v', `${dir}:/config:ro`, '-e', 'KUBECONFIG=/config/kubeconfig', '-e', 'VEIL_OPERATOR_NAMESPACE=veil', '-e', 'POD_NAME=veil-operator-0', '-e', `VEIL_OPERATOR_HEALTH_PORT=${port}`,
        ]);
        const health = await waitFor(async () => {
          const response = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
          return response?.status === 200 ? ((await response.json()) as Record<string, unknown>) : undefined;
        }, 120_000, `the operator container (${await logs(name)})`);
        expect(health['status']).toBe('ok');
        await waitFor(() => simulator.peek('Lease', 'veil', 'veil-operator') !== undefined, 60_000, 'the operator to take the Lease');
        // The Lease is written before the log line, and podman's log lags the container: wait for it.
        const led = await waitFor(async () => {
          const text = await logs(name);
          return text.includes('"msg":"started leading"') ? text : undefined;
        }, 60_000, 'the operator to log that it leads');
        expect(led).toContain('"msg":"started leading"');
      } finally {
        await simulator.stop();
      }
    }, 300_000);
  });
}
