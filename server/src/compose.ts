// Part of the composition root (with app.ts, deps.ts and main.ts): the use cases wired from the
// process's dependencies. With app.ts the only place that reads AppDeps: each use case gets the
// narrow dependencies it needs, and each request a RequestScope (its tenant's key ring and
// policy set, read once). The file-parsing pool and the OCR engine are built here when the
// process did not bring its own, and closed with the app (close()).
import { UpstreamClient } from './clients/upstream.js';
import type { AppDeps } from './deps.js';
import { jsonLimits } from './plugins/json.js';
import { createFilePool } from './services/files.js';
import { policiesFor } from './services/policies.js';
import { createOcrEngine } from './services/ocr.js';
import { outputProtectionSettings } from './services/output-guard.js';
import { promptSecuritySettings } from './services/prompt-security.js';
import { BatchUseCase } from './usecases/batch.js';
import { DetectUseCase } from './usecases/detect.js';
import { FilesUseCase } from './usecases/files.js';
import { ProxyUseCase } from './usecases/proxy.js';
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
  readonly files: FilesUseCase;
  readonly proxy: ProxyUseCase;
  /** Close what was built here (the file-parsing pool and the OCR engine the process did not bring). */
  close(): Promise<void>;
  /** An incremental rehydrate (ndjson), opened and checked before its first frame. */
  openRestoreStream(call: UseCaseCall, base: RehydrateRequest): Promise<RestoreStream>;
}

/**
 * Only the named fields of deps, for a route or plugin (app.ts): what it receives is what its
 * signature names, at run time too, never the locator. Copied with their descriptors, so a
 * getter stays live.
 */
export function only<K extends keyof AppDeps>(deps: AppDeps, ...keys: K[]): Pick<AppDeps, K> {
  const picked = {};
  for (const key of keys) {
    const descriptor = Object.getOwnPropertyDescriptor(deps, key);
    if (descriptor !== undefined) Object.defineProperty(picked, key, descriptor);
  }
  return picked as Pick<AppDeps, K>;
}

export interface ComposeOptions {
  /** Where a late warning goes (the OCR engine's language data): the app's logger. */
  readonly warn?: (message: string) => void;
}

/** The proxy's upstream client, when proxy.upstream_url is set. */
function upstreamClient(proxy: AppDeps['config']['proxy']): UpstreamClient | undefined {
  if (proxy.upstream_url === undefined) return undefined;
  return new UpstreamClient({
    baseUrl: proxy.upstream_url,
    timeoutMs: proxy.timeout_secs * 1000,
    idleTimeoutMs: proxy.stream_idle_timeout_secs * 1000,
    maxResponseBytes: proxy.max_response_bytes,
  });
}

export function buildUseCases(deps: AppDeps, options: ComposeOptions = {}): UseCases {
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
  const files = deps.files ?? createFilePool({ limits: config.file_upload, json: jsonLimits(config) });
  const ocr = deps.ocr ?? createOcrEngine(config.ocr, options.warn);
  return {
    scopeOf,
    executor,
    transform,
    rehydrate,
    rag,
    detect,
    sessions: new SessionsUseCase({ state: deps }),
    revoke: new RevokeUseCase({ state: deps }),
    batch: new BatchUseCase({ transform, executor, state: deps }),
    files: new FilesUseCase({ transform, rehydrate, executor, files, ocr, maxPixels: config.file_upload.max_pixels }),
    proxy: new ProxyUseCase({ transform, rehydrate, state: deps, upstream: upstreamClient(config.proxy), allowMediaParts: config.proxy.allow_media_parts }),
    openRestoreStream: (call, base) => RestoreStream.open({ rehydrate, state: deps }, call, base),
    close: async () => {
      if (deps.files === undefined) await files.close();
      if (deps.ocr === undefined) await ocr.close();
    },
  };
}
