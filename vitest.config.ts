// Test runner configuration: three projects that one `npx vitest run` (make test) runs together,
// and that run alone with `--project` (make unit, make integration, make e2e):
// - unit: pure and in-process tests beside the code (HTTP through inject, worker threads);
// - integration: tests beside the code that start real processes (Redis, the NER sidecar, a
//   `veil serve`, a child killed with SIGKILL, helm, qpdf);
// - e2e: the suites under e2e/ against the built server.
// A file belongs to exactly one project: tools/vitest/projects.test.ts fails when a test file
// lands in none or in two, or when a unit file starts a process.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import TimingReporter from './tools/vitest/timing-reporter.js';

/** Test files beside the code (the unit and integration projects share these roots). */
const BESIDE_CODE = [
  'common/src/**/*.test.ts',
  'server/src/**/*.test.ts',
  'operator/src/**/*.test.ts',
  'operator/test/**/*.test.ts',
  'charts/test/**/*.test.ts',
  'clients/typescript/test/**/*.test.ts',
  'tools/vitest/**/*.test.ts',
];

/**
 * Files beside the code that start real processes. A suffix names the kind where one exists
 * (*.redis, *.sidecar, *.durability); the others are listed by path.
 */
export const INTEGRATION = [
  '**/*.redis.test.ts',
  '**/*.sidecar.test.ts',
  '**/*.durability.test.ts',
  // helm template / helm lint (scripts/helm.sh)
  'charts/test/chart.test.ts',
  // the SDKs against a real `veil serve`
  'clients/typescript/test/**/*.e2e.test.ts',
  // qpdf builds the password-protected PDF
  'server/src/routes/files.test.ts',
  'server/src/bench/common.test.ts',
];

const EXCLUDE = ['**/node_modules/**', '**/dist/**'];

export default defineConfig({
  resolve: {
    alias: { '@veil/common': fileURLToPath(new URL('./common/src/index.ts', import.meta.url)) },
  },
  test: {
    exclude: EXCLUDE,
    pool: 'forks',
    // At least two files at a time (vitest's default is one worker fewer than the cores: one on
    // the 2-core CI machine). The e2e and integration files spend most of their time waiting on
    // other processes and on clocks (a session TTL, the operator's one-TTL retirement, 50
    // kill-restart cycles, write timeouts), which a second worker fills with other files.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The timing table first, then the default reporter's failures and summary: a failure stays
    // the last thing a reader of CI's log sees.
    reporters: [new TimingReporter(), 'default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: BESIDE_CODE,
          exclude: [...EXCLUDE, ...INTEGRATION],
          testTimeout: 30_000,
          // Building the app in-process and the first import of the heavy modules (PDF.js, OCR)
          // take seconds on a loaded 2-core machine.
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          // A test may start several processes (helm renders a dozen charts in one test).
          testTimeout: 60_000,
          // beforeAll starts real processes: Redis, the sidecar (model load), veil serve.
          hookTimeout: 90_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          testTimeout: 30_000,
          // Suites start real processes (veil serve, the sidecar, Redis, a control plane, image
          // builds) in beforeAll: on a loaded 2-core machine a start can take several seconds.
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
