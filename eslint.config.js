// Lint configuration: typescript-eslint strict-type-checked on every TypeScript source.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { LAYER_RULES } from './eslint.layers.js';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.js', '**/*.mjs', 'ner/**', 'charts/veil/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.tools.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/unified-signatures': 'off',
    },
  },
  // The layers of server/src (eslint.layers.js); common/src below is as pure as domain/.
  ...LAYER_RULES,
  {
    files: ['common/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['fastify', 'fastify/*', '@fastify/*', 'ioredis', 'pino', '@kubernetes/*'] }],
    },
  },
  {
    files: ['**/*.test.ts', '**/*.suite.ts', 'e2e/**/*.ts', 'charts/test/**/*.ts', '**/bench/**/*.ts', 'server/test/**/*.ts', 'operator/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests count code points on purpose ([...text] is exactly that).
      '@typescript-eslint/no-misused-spread': 'off',
    },
  },
);
