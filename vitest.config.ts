// Test runner configuration: unit and HTTP tests beside the code, e2e suites under e2e/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: { '@veil/common': fileURLToPath(new URL('./common/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['common/src/**/*.test.ts', 'server/src/**/*.test.ts', 'operator/src/**/*.test.ts', 'charts/test/**/*.test.ts', 'e2e/**/*.e2e.test.ts', 'clients/typescript/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    testTimeout: 30_000,
    // Suites start real processes (veil serve, the sidecar, Redis) in beforeAll: on a loaded
    // 2-core machine a start can take several seconds.
    hookTimeout: 90_000,
  },
});
