// Tenant traffic for the rotation suites (e2e/operator.e2e.test.ts, the real-cluster suite):
// transform on one server, rehydrate the blob on another, counting failures and the kids seen.
import { postJson, type ServerProcess } from './server.js';

/**
 * Tenant traffic until stopped: a transform on one server, its blob rehydrated on the other
 * (round-robin). Counts every failure and collects the kid of every blob (`v1.<kid>.<...>`).
 */
export function tenantTraffic(servers: readonly Pick<ServerProcess, 'url'>[], apiKey: string): { sent(): number; stop(): Promise<{ sent: number; failed: string[]; kids: Set<string> }> } {
  if (servers.length === 0) throw new Error('tenantTraffic: no servers');
  let running = true;
  let sent = 0;
  const failed: string[] = [];
  const kids = new Set<string>();
  const headers = { 'x-api-key': apiKey };
  const loop = (async () => {
    for (let index = 0; running; index += 1) {
      const sealer = servers[index % servers.length]!;
      const opener = servers[(index + 1) % servers.length]!;
      try {
        const transformed = await postJson(`${sealer.url}/v1/transform`, { input: `write to alice${index}@example.com` }, headers);
        if (transformed.status !== 200) {
          failed.push(`transform ${transformed.status} ${transformed.text.slice(0, 200)}`);
          continue;
        }
        const blob = String(transformed.body.session_state);
        kids.add(blob.split('.')[1] ?? '');
        const restored = await postJson(`${opener.url}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: blob }, headers);
        sent += 1;
        if (restored.status !== 200 || restored.body.tokens_resolved !== 1) failed.push(`rehydrate ${restored.status} ${restored.text.slice(0, 200)}`);
      } catch (error) {
        failed.push(error instanceof Error ? error.message : 'request failed');
      }
    }
  })();
  return {
    sent: () => sent,
    stop: async () => {
      running = false;
      await loop;
      return { sent, failed, kids };
    },
  };
}
