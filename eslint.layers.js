// The layers of server/src as lint rules (issue 20; ARCHITECTURE.md "Layers"): domain <- services
// and infrastructure <- usecases <- routes and plugins, wired by the composition root (app.ts,
// compose.ts, deps.ts, main.ts). Each entry names what a folder may not import; no module outside
// the root imports deps.js (the AppDeps locator) in any layer. eslint.config.js applies them and
// server/src/architecture.test.ts proves each one refuses its forbidden imports.
//
// An ESLint rule configured by two entries takes the later entry's options, so the entries
// cover disjoint files and each lists the locator itself.

/** Import paths of server/src modules, as relative imports spell them from any depth. */
const paths = (...names) => names.flatMap((name) => [`**/${name}`, `**/${name}/**`]);

/** The composition root: only it (and the CLI entry) reads the AppDeps locator and wires the layers. */
const ROOT = paths('deps.js', 'compose.js', 'app.js', 'main.js');
/** The AppDeps locator: read by the composition root only; everything else names what it needs. */
const LOCATOR = paths('deps.js');
/** HTTP frameworks and clients of infrastructure: only adapters (routes, plugins) and infrastructure modules use them. */
const FRAMEWORKS = ['fastify', 'fastify/*', '@fastify/*', 'pino', 'ioredis', '@kubernetes/*'];

const restrict = (message, group) => ['error', { patterns: [{ group, message }] }];

export const LAYER_RULES = [
  {
    // Pure rules and data: tokens, sealing, detection, policies, restore. Nothing from above.
    files: ['server/src/domain/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict('domain/ is pure: it imports only other domain modules and @veil/common', [
        ...FRAMEWORKS,
        ...ROOT,
        ...paths('services', 'usecases', 'routes', 'plugins', 'stores', 'workers', 'clients', 'config', 'reload', 'audit', 'auth', 'metrics', 'cluster', 'files', 'openapi', 'cli'),
      ]),
    },
  },
  {
    // Services, workers, stores and clients: the pieces use cases are built from. They never
    // reach up to a use case, a route or the locator; what they need is passed in.
    files: ['server/src/services/**/*.ts', 'server/src/workers/**/*.ts', 'server/src/stores/**/*.ts', 'server/src/clients/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.suite.ts'],
    rules: {
      'no-restricted-imports': restrict('services, workers, stores and clients receive their dependencies: no use case, route, plugin or AppDeps import', [
        'fastify',
        'fastify/*',
        '@fastify/*',
        ...ROOT,
        ...paths('usecases', 'routes', 'plugins'),
      ]),
    },
  },
  {
    // Use cases: one flow per request kind, free of HTTP, given narrow dependencies by compose.ts.
    files: ['server/src/usecases/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict('use cases are free of HTTP and of the AppDeps locator: take narrow dependencies (see compose.ts)', [
        ...FRAMEWORKS,
        ...ROOT,
        ...paths('routes', 'plugins'),
      ]),
    },
  },
  {
    // Routes: adapters (schema, scope, call a use case, reply). The worker protocol is the
    // executor's, and the layers below are reached through use cases or the composition root.
    files: ['server/src/routes/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict('routes call use cases and take narrow dependencies (no AppDeps: see app.ts); the worker protocol belongs to usecases/executor.ts', [
        ...LOCATOR,
        ...paths('workers', 'app.js', 'main.js'),
      ]),
    },
  },
  {
    // Plugins: Fastify hooks, given their configuration slice, stores and the executor's body
    // offload by app.ts; the worker pool is the executor's.
    files: ['server/src/plugins/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict('plugins take narrow dependencies (no AppDeps: see app.ts); the worker pool is reached through the executor (BodyOffload)', [
        ...LOCATOR,
        ...paths('services/offload.js', 'app.js', 'main.js'),
      ]),
    },
  },
  {
    // The other infrastructure folders and top-level modules: configuration, auth, audit,
    // metrics, reload, cluster, file formats, OpenAPI, the CLI, tracing and logging.
    files: [
      'server/src/{config,auth,audit,metrics,reload,cluster,files,openapi,cli,bench}/**/*.ts',
      'server/src/tracing.ts',
      'server/src/logging.ts',
    ],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict('only the composition root (app.ts, compose.ts, main.ts) reads the AppDeps locator: take narrow dependencies', [...LOCATOR]),
    },
  },
];
