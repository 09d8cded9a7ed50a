// Opens the state stores the configuration asks for and bundles them as AppStores.
import type { VeilConfig } from '../config/index.js';
import type { AppStores } from '../deps.js';
import { MemoryIdempotencyStore, MemoryReplayStore, MemoryRevocationStore, MemorySessionStore } from '../stores/memory/index.js';

export async function openAppStores(config: VeilConfig): Promise<AppStores> {
  const wanted = [config.replay_backend, config.revocation_backend, config.idempotency.backend, config.session.backend];
  if (wanted.some((backend) => backend !== 'memory' && backend !== 'sealed')) {
    throw new Error('sqlite and redis backends are not wired in this build yet; use memory');
  }
  const stores: AppStores = {
    replay: new MemoryReplayStore(),
    revocation: new MemoryRevocationStore(),
    idempotency: new MemoryIdempotencyStore(),
    sessions: config.session.backend === 'memory' ? new MemorySessionStore() : undefined,
    close: async () => {
      await Promise.all([stores.replay.close(), stores.revocation.close(), stores.idempotency.close(), stores.sessions?.close()]);
    },
  };
  return Promise.resolve(stores);
}
