// Route schemas compiled on first use instead of at startup. Fastify compiles every route's
// body validator (ajv) and response serializer (fast-json-stringify) while the app becomes ready;
// for Veil's ~40 routes that was about 1.3 s of a cold start, most of it for routes a given
// deployment rarely calls. Here each route gets a small wrapper that compiles its schema with
// Fastify's own compilers (the same ajv options, the same serializer) the first time it is
// needed, and `warm()` compiles the rest one per event-loop turn once the server is up, so the
// first requests do not pay for it either. Validation and serialization are unchanged: same
// compiler, same schema, same errors (Fastify reads `errors` from the validator it called).
//
// The warm-up waits for the server's first response (in practice the first readiness probe) or
// WARM_DELAY_MS, whichever comes first: loading the compilers is one long event-loop turn, and a
// probe that arrived meanwhile waited for it (180 ms of a cold start, BENCHMARKS.md "Session 13
// (wave12/boot)"). It then loads them with a dynamic import (a chunk of its own in the bundle,
// scripts/bundle.mjs) before compiling.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import type AjvCompiler from '@fastify/ajv-compiler';
import type SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

// The compilers themselves (ajv, its formats, fast-json-stringify) load with the first
// compilation too, or with the warm-up's import, whichever is first. Both are CommonJS, so a
// synchronous require serves a compile that comes before the import.
const require = createRequire(import.meta.url);

/** The longest the warm-up waits for the first response after the server listens. */
export const WARM_DELAY_MS = 1000;

/** Resolves when this process's HTTP server next finishes a response, or after `delayMs`. */
function firstResponseOr(delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      unsubscribe('http.server.response.finish', done);
      resolve();
    };
    const timer = setTimeout(done, delayMs);
    timer.unref();
    subscribe('http.server.response.finish', done);
  });
}

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

export interface LazyCompilers {
  /** For Fastify's `schemaController.compilersFactory`. */
  readonly compilersFactory: CompilersFactory;
  /**
   * Compile every schema not compiled yet, one per event-loop turn (setImmediate), once the
   * process's HTTP server has finished a response or `warmDelayMs` have passed.
   */
  warm(): Promise<void>;
  /** Schemas still waiting to be compiled (tests). */
  pending(): number;
}

export interface LazyCompilersOptions {
  /** The longest warm() waits for a first response (default WARM_DELAY_MS). */
  readonly warmDelayMs?: number;
}

export function lazyCompilers(options: LazyCompilersOptions = {}): LazyCompilers {
  let validators: ReturnType<typeof AjvCompiler> | undefined;
  let serializers: ReturnType<typeof SerializerSelector> | undefined;
  let ajvCompiler: typeof AjvCompiler | undefined;
  let serializerSelector: typeof SerializerSelector | undefined;
  const buildValidators: ReturnType<typeof AjvCompiler> = (externalSchemas, options) => {
    validators ??= (ajvCompiler ?? (require('@fastify/ajv-compiler') as typeof AjvCompiler))();
    return validators(externalSchemas, options);
  };
  const buildSerializers: ReturnType<typeof SerializerSelector> = (externalSchemas, options) => {
    serializers ??= (serializerSelector ?? (require('@fastify/fast-json-stringify-compiler') as typeof SerializerSelector))();
    return serializers(externalSchemas, options);
  };
  const waiting = new Set<() => void>();

  /** A function that runs `compile` once, on its first call or when warmed, whichever is first. */
  function once<T>(compile: () => T): () => T {
    let compiled: T | undefined;
    const get = (): T => {
      if (compiled === undefined) {
        waiting.delete(warmOne);
        compiled = compile();
      }
      return compiled;
    };
    const warmOne = (): void => {
      get();
    };
    waiting.add(warmOne);
    return get;
  }

  type ValidatorArgs = Parameters<typeof buildValidators>;
  type SerializerArgs = Parameters<typeof buildSerializers>;

  function buildValidator(externalSchemas: ValidatorArgs[0], ajvOptions: ValidatorArgs[1]) {
    let compiler: ReturnType<typeof buildValidators> | undefined;
    return (route: Parameters<ReturnType<typeof buildValidators>>[0]): Validate => {
      const compiled = once(() => {
        compiler ??= buildValidators(externalSchemas, ajvOptions);
        return compiler(route) as Validate;
      });
      const validate: Validate = (data) => {
        const inner = compiled();
        const ok = inner(data);
        validate.errors = inner.errors;
        return ok;
      };
      return validate;
    };
  }

  function buildSerializer(externalSchemas: SerializerArgs[0], serializerOptions: SerializerArgs[1]) {
    let compiler: ReturnType<typeof buildSerializers> | undefined;
    return (route: Parameters<ReturnType<typeof buildSerializers>>[0]) => {
      const compiled = once(() => {
        compiler ??= buildSerializers(externalSchemas, serializerOptions);
        return compiler(route);
      });
      return (data: unknown): string => compiled()(data);
    };
  }

  // Fastify's types expect ajv's own function type; the wrapper is called the same way.
  const compilersFactory = { buildValidator, buildSerializer } as unknown as CompilersFactory;

  return {
    compilersFactory,
    async warm() {
      await firstResponseOr(options.warmDelayMs ?? WARM_DELAY_MS);
      if (waiting.size === 0) return;
      const [validatorModule, serializerModule] = await Promise.all([import('@fastify/ajv-compiler'), import('@fastify/fast-json-stringify-compiler')]);
      ajvCompiler ??= validatorModule.default;
      serializerSelector ??= serializerModule.default;
      for (const warmOne of [...waiting]) {
        await new Promise((resolve) => setImmediate(resolve));
        warmOne();
      }
    },
    pending: () => waiting.size,
  };
}
