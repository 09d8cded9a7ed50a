// Part of the composition root (with app.ts, deps.ts and main.ts): the use cases wired from the
// process's dependencies. The only place below buildApp that reads AppDeps for the use cases:
// each use case gets the narrow dependencies it needs, and each request a RequestScope (its
// tenant's key ring and policy set, read once).
import { policiesFor, type AppDeps } from './deps.js';
import { jsonLimits } from './plugins/json.js';
import { outputProtectionSettings } from './services/output-guard.js';
import { promptSecuritySettings } from './services/prompt-security.js';
import { BatchUseCase } from './usecases/batch.js';
import { DetectUseCase } from './usecases/detect.js';
import { Executor, type RequestScope } from './usecases/executor.js';
import { RagUseCase } from './usecases/rag.js';
import { RehydrateUseCase } from './usecases/rehydrate.js';
import { RevokeUseCase } from './usecases/revoke.js';
import { SessionsUseCase } from './usecases/sessions.js';
import { RestoreStream } from './usecases/stream.js';
import { TransformUseCase, type UseCaseCall } from './usecases/transform.js';
import type { RehydrateRequest } from './services/rehydrate.js';

export interface UseCases {
  /** The scope of one request of `tenant`: read once, at the start of the request. */
  scopeOf(tenant: string | null): RequestScope;
  readonly executor: Executor;
  readonly transform: TransformUseCase;
  readonly rehydrate: RehydrateUseCase;
  readonly rag: RagUseCase;
  readonly detect: DetectUseCase;
  readonly sessions: SessionsUseCase;
  readonly revoke: RevokeUseCase;
  readonly batch: BatchUseCase;
  /** An incremental rehydrate (ndjson), opened and checked before its first frame. */
  openRestoreStream(call: UseCaseCall, base: RehydrateRequest): Promise<RestoreStream>;
}

export function buildUseCases(deps: AppDeps): UseCases {
  const config = deps.config;
  const promptSecurity = promptSecuritySettings(config);
  const executor = new Executor(deps.offload, {
    transform: {
      defaultLanguage: config.detector.default_language,
      defaultRegion: config.detector.default_region,
      ttlSeconds: config.session.ttl_seconds,
      contextStrategy: config.transform.context_strategy,
      maxContextTokens: config.transform.max_context_tokens,
      promptSecurity,
    },
    templates: config.restore_templates,
    outputProtection: outputProtectionSettings(config),
    defaultRegion: config.detector.default_region,
    digestKey: deps.digestSecret,
    jsonLimits: jsonLimits(config),
  });
  const scopeOf = (tenant: string | null): RequestScope => ({ tenant, keyRing: deps.reload.keyRingFor(tenant), registry: policiesFor(deps, tenant), nowMs: deps.now() });
  const transform = new TransformUseCase({ executor, ner: deps, state: deps, promptSecurity, defaultLanguage: config.detector.default_language });
  const rehydrate = new RehydrateUseCase({ executor, state: deps });
  const rag = new RagUseCase({ executor, ner: deps, state: deps, corpusKeys: deps.corpusKeys, promptSecurity, scopeOf });
  const detect = new DetectUseCase({ executor, ner: deps, defaultLanguage: config.detector.default_language });
  return { scopeOf, executor, transform, rehydrate, rag, detect, sessions: new SessionsUseCase({ state: deps }), revoke: new RevokeUseCase({ state: deps }), batch: new BatchUseCase({ transform, executor, state: deps }),
    openRestoreStream: (call, base) => RestoreStream.open({ rehydrate, state: deps }, call, base),
  };
}
