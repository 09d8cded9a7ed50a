// The layers of server/src as lint rules (issue 20; ARCHITECTURE.md "Layers"): domain <- services
// and infrastructure <- usecases <- routes, wired by the composition root (app.ts, compose.ts,
// deps.ts, main.ts). Each entry names what a folder may not import; eslint.config.js applies
// them and server/src/architecture.test.ts proves each one refuses its forbidden imports.

/** Import paths of server/src modules, as relative imports spell them from any depth. */
const paths = (...names) => names.flatMap((name) => [`**/${name}`, `**/${name}/**`]);

/** The composition root: only it (and the CLI entry) reads the AppDeps locator and wires the layers. */
const ROOT = paths('deps.js', 'compose.js', 'app.js', 'main.js');
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
      'no-restricted-imports': restrict('routes call use cases: the worker protocol belongs to usecases/executor.ts', [...paths('workers', 'app.js', 'main.js')]),
    },
  },
];
