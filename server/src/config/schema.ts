// The configuration schema (decisions.md section 10, interface.md sections 5 and 8): one JSON
// Schema that ajv validates with defaults, and the TypeScript shape of the validated result.
// Key spellings follow the spec exactly. Every object rejects unknown keys, so a typo aborts
// startup instead of being silently ignored. Rules JSON Schema states badly (cross-field
// requirements, secret encodings, the batch-size ceiling) live in load.ts.
import { AUTH_SCOPES, POLICY_SCHEMA, RESTORE_STRATEGY_SCHEMA, type AuthScope } from '@veil/common';
import type { Secret } from './secrets.js';

/** limits.max_batch_size may be lowered but never raised above this (interface.md section 8). */
export const MAX_BATCH_SIZE_CEILING = 1000;
/** detector.timeout_secs upper bound (interface.md section 8). */
export const MAX_DETECTOR_TIMEOUT_SECS = 120;
/** Minimum length of auth.jwt.secret in UTF-8 bytes (decisions.md section 5). */
export const MIN_JWT_SECRET_BYTES = 32;
/** Minimum length of a configured API key, so a trivially guessable key cannot be configured. */
export const MIN_API_KEY_LENGTH = 16;
/** Upper bound of server.workers. */
export const MAX_WORKERS = 256;

export const AUTH_MODES = ['dev', 'api_key', 'jwt', 'oidc'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];
/** The 11 scopes of interface.md section 5: one list in @veil/common (auth-scopes.ts). */
export { AUTH_SCOPES, type AuthScope };
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
export const OIDC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'PS256', 'PS384', 'PS512'] as const;
export type OidcAlgorithm = (typeof OIDC_ALGORITHMS)[number];
export const SESSION_BACKENDS = ['sealed', 'memory', 'redis'] as const;
export type SessionBackend = (typeof SESSION_BACKENDS)[number];
export const STORE_BACKENDS = ['memory', 'sqlite', 'redis'] as const;
export type StoreBackend = (typeof STORE_BACKENDS)[number];
export const DETECTOR_MODES = ['builtin', 'advanced', 'both'] as const;
export type DetectorMode = (typeof DETECTOR_MODES)[number];
export const AUDIT_BACKENDS = ['log', 'file'] as const;
export type AuditBackend = (typeof AUDIT_BACKENDS)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const CONTEXT_STRATEGIES = ['full', 'type_summary', 'referenced_only', 'none'] as const;
export type ContextStrategy = (typeof CONTEXT_STRATEGIES)[number];
export const OUTPUT_PROTECTION_MODES = ['strict', 'permissive'] as const;
export const OUTPUT_PROTECTION_ACTIONS = ['allow', 'warn', 'mask', 'block'] as const;
export const PROMPT_SECURITY_ACTIONS = ['warn', 'strip', 'block'] as const;
export const OCR_ENGINES = ['tesseract', 'none'] as const;

// ---------------------------------------------------------------------------------------------
// The validated shape. Everything is readonly: the loader deep-freezes the result.

/**
 * One API key: the key itself (`key`), or only its lowercase hex SHA-256 (`key_sha256`, what the
 * Kubernetes operator writes: a leaked file then grants nothing). Exactly one of the two.
 */
export type ApiKeyConfig = ApiKeyEntryFields & ({ readonly key: Secret; readonly key_sha256?: undefined } | { readonly key?: undefined; readonly key_sha256: string });

export interface ApiKeyEntryFields {
  readonly identity: string;
  readonly tenant_id?: string;
  /** Absent means the entry names no scopes; what that grants is the auth layer's rule. */
  readonly scopes?: readonly AuthScope[];
  readonly role?: string;
  readonly purpose?: string;
  /**
   * RAG clearance: the highest rag.classification_levels label this caller may read (context,
   * answer). Absent: the lowest level (least privilege). A request's access_level may only lower it.
   */
  readonly access_level?: string;
}

/** With auth.mode jwt, secret, issuer and audience are guaranteed present. */
export interface JwtConfig {
  readonly secret?: Secret;
  readonly issuer?: string;
  readonly audience?: string;
  readonly algorithms: readonly JwtAlgorithm[];
}

/** With auth.mode oidc, issuer, jwks_url and audience are guaranteed present. */
export interface OidcConfig {
  readonly issuer?: string;
  readonly jwks_url?: string;
  readonly audience?: string;
  readonly tenant_claim: string;
  readonly algorithms: readonly OidcAlgorithm[];
}

/** Entry counts (and, for the stores with large values, approximate bytes) of the state stores. */
export interface StoreCapacity {
  readonly revocations: number;
  readonly replay_records: number;
  readonly idempotency_records: number;
  readonly idempotency_bytes: number;
  readonly sessions: number;
  readonly session_bytes: number;
}

/** Defaults of storage.memory_limits: sized so that all of them full stay well under 1 GiB. */
export const MEMORY_LIMIT_DEFAULTS: StoreCapacity = {
  revocations: 500_000,
  replay_records: 500_000,
  idempotency_records: 100_000,
  idempotency_bytes: 128 * 1024 * 1024,
  sessions: 100_000,
  session_bytes: 128 * 1024 * 1024,
};

/** The schema of a StoreCapacity section, with `defaults` (a field without one is optional). */
function capacitySection(defaults: Partial<StoreCapacity>): Record<string, unknown> {
  const bound = (name: keyof StoreCapacity): Record<string, unknown> => ({
    type: 'integer',
    minimum: 1,
    maximum: 1_000_000_000_000,
    ...(defaults[name] !== undefined ? { default: defaults[name] } : {}),
  });
  return {
    revocations: bound('revocations'),
    replay_records: bound('replay_records'),
    idempotency_records: bound('idempotency_records'),
    idempotency_bytes: bound('idempotency_bytes'),
    sessions: bound('sessions'),
    session_bytes: bound('session_bytes'),
  };
}

export interface RateLimitConfig {
  readonly requests_per_second: number;
  readonly burst_size: number;
}

/** Mirrors @veil/common's policy RestoreStrategy (interface.md 2.7). */
export type RestoreStrategyConfig =
  | { readonly kind: 'reveal_last_n' | 'reveal_first_n'; readonly n: number; readonly mask_char?: string }
  | { readonly kind: 'reveal_range'; readonly start: number; readonly len: number; readonly mask_char?: string }
  | { readonly kind: 'mask' }
  | { readonly kind: 'bucket'; readonly ranges: readonly { readonly min?: number; readonly max?: number; readonly label: string }[] };

export interface VeilConfig {
  readonly server: {
    readonly host: string;
    readonly port: number;
    readonly allowed_origins: readonly string[];
    readonly tls?: { readonly cert: string; readonly key: string };
    /** Largest request body accepted, in bytes. */
    readonly body_limit_bytes: number;
    /** Worker processes (node:cluster); unset = one per core when every state store is shared. */
    readonly workers?: number;
    /** How long SIGTERM waits for in-flight requests before forcing exit. */
    readonly shutdown_timeout_seconds: number;
    /** A request's headers must arrive within this (slow-header clients are cut). */
    readonly headers_timeout_seconds: number;
    /** A request's whole body must arrive within this; then 408 and the connection is closed. */
    readonly request_timeout_seconds: number;
    /** A connection with no bytes moving either way for this long is closed (a client not reading its answer, too). */
    readonly idle_timeout_seconds: number;
    /** An idle keep-alive connection is closed after this. */
    readonly keep_alive_timeout_seconds: number;
    /** Open connections per process; past it the oldest idle or still-sending connection is dropped. */
    readonly max_connections: number;
    /** Open connections per source address (0: no per-source cap, e.g. behind a proxy). */
    readonly max_connections_per_source: number;
    /** Memory the process may use, MiB (unset: the container's limit, else the machine's memory). */
    readonly memory_budget_mb?: number;
    /**
     * Which proxies' X-Forwarded-For to believe for the client address (Fastify trustProxy):
     * false (the socket peer is the client), true (any), a hop count, or addresses/CIDRs.
     */
    readonly trust_proxy: boolean | number | readonly string[];
  };
  readonly auth: {
    readonly mode: AuthMode;
    readonly api_keys: readonly ApiKeyConfig[];
    /** YAML/JSON file of more api_keys entries, re-read on change (rotation without restart). */
    readonly api_keys_file?: string;
    /** Directory of API-key files in the operator's layout (@veil/common k8s/layout.ts), re-read on change. */
    readonly api_keys_directory?: string;
    readonly jwt?: JwtConfig;
    readonly oidc?: OidcConfig;
    /** Failed authentication throttled per client address (plugins/auth-throttle.ts). */
    readonly failure_limit: {
      readonly enabled: boolean;
      /** Failures a source may make at once. */
      readonly burst: number;
      /** Failures per minute a source regains. */
      readonly per_minute: number;
      /** Sources tracked at once (least recently used forgotten beyond). */
      readonly max_sources: number;
    };
  };
  /**
   * The session secret and key ring are not here: they live only in LoadedConfig.keyRing, so
   * the config object can be logged or inspected without a key in it.
   */
  readonly session: {
    readonly backend: SessionBackend;
    /** YAML/JSON file holding {current_kid, keys}; re-read on change (rotation without restart). */
    readonly keyring_file?: string;
    /** Directory of per-tenant key-ring files (@veil/common k8s/layout.ts), re-read on change. */
    readonly keyring_directory?: string;
    readonly ttl_seconds: number;
    /**
     * How far replicas' clocks may disagree: deny-list entries and memory revocations outlive
     * the longest blob lifetime by this much (services/state.ts).
     */
    readonly clock_skew_seconds: number;
    readonly redis_url?: string;
  };
  readonly revocation_backend: StoreBackend;
  readonly replay_backend: StoreBackend;
  readonly idempotency: {
    readonly backend: StoreBackend;
    readonly ttl_seconds: number;
    readonly in_progress_ttl_seconds: number;
  };
  readonly storage: {
    readonly sqlite_path?: string;
    /** Global caps of the memory stores (whole process). */
    readonly memory_limits: StoreCapacity;
    /**
     * One tenant's share (untenanted callers share one); unset fields get their default from the
     * backend (services/stores.ts storeLimits): a tenth of the cap on the memory stores;
     * revocations and idempotency_records also bind SQLite and Redis.
     */
    readonly tenant_quotas: Partial<StoreCapacity>;
    /** Waives the startup check that a Redis holding revocations is durable (AOF on, noeviction). */
    readonly allow_non_durable_redis: boolean;
  };
  readonly detector: {
    readonly mode: DetectorMode;
    readonly advanced_url?: string;
    readonly api_key?: Secret;
    readonly default_language: string;
    /** Region (ISO 3166-1 alpha-2) for national phone numbers and numeric dates when the language names none. */
    readonly default_region: string;
    readonly timeout_secs: number;
    /** Largest text per sidecar call (window of one piece, or several slots), in UTF-16 units. */
    readonly ner_piece_chars: number;
    /** Sidecar calls in flight at once for one request. */
    readonly ner_concurrency: number;
    /** Sidecar calls in flight at once for this process (all requests); more wait in the server. */
    readonly ner_max_in_flight: number;
  };
  readonly policy: {
    readonly directory?: string;
    readonly default?: string;
    readonly watch: boolean;
    /** Quiet period after the last file change before policy.watch reloads. */
    readonly watch_debounce_ms: number;
  };
  readonly audit: {
    readonly backend: AuditBackend;
    readonly path?: string;
    readonly strict: boolean;
    readonly allow_ephemeral: boolean;
  };
  readonly rate_limit: RateLimitConfig & {
    readonly enabled: boolean;
    /** A request body costs one unit per this many bytes (at least one unit per request). */
    readonly bytes_per_unit: number;
    /** Entities a response found cost one unit per this many, charged after the response. */
    readonly entities_per_unit: number;
  };
  /** Per-tenant overrides; a missing field falls back to rate_limit. */
  readonly tenants: Readonly<Record<string, { readonly rate_limit?: Partial<RateLimitConfig> }>>;
  /** Directory of per-tenant settings files (rate limit, allowed policies), re-read on change. */
  readonly tenants_directory?: string;
  readonly limits: {
    readonly max_batch_size: number;
    /**
     * Longest a streaming response may stay open (every SSE route, the incremental ndjson
     * rehydrate included); the stream then ends with an error frame.
     */
    readonly max_stream_seconds: number;
    /** A stream whose client has not taken a frame for this long is closed. */
    readonly stream_write_timeout_seconds: number;
    /** Requests with a body above transform.offload_threshold_bytes (or of unknown length) in progress at once. */
    readonly max_large_requests: number;
    /** Incremental (ndjson) rehydrate streams open at once. */
    readonly max_streams: number;
    /** Tasks waiting for a worker thread beyond which requests get 503 VEIL_OVERLOADED. */
    readonly max_offload_queue: number;
    /** Members of one JSON object in a request body, checked before the body is parsed. */
    readonly max_json_object_keys: number;
    /** Values (containers, strings, numbers, literals) in a request body, checked before parsing. */
    readonly max_json_values: number;
  };
  readonly file_upload: {
    readonly max_size_bytes: number;
    /** Largest image (width x height, from the header, checked before decoding). */
    readonly max_pixels: number;
    /** Largest text a file may yield after extraction (UTF-16 units). */
    readonly max_text_chars: number;
    /** Largest total uncompressed size of a DOCX archive (declared and actually inflated). */
    readonly max_uncompressed_bytes: number;
    /** Most entries a DOCX archive may list. */
    readonly max_archive_entries: number;
    /** Wall-clock bound on parsing one file on a worker thread. */
    readonly parse_timeout_secs: number;
    /** Memory bound on one parse: worker heap limit and process RSS growth watchdog. */
    readonly parse_memory_mb: number;
    /** Worker threads that parse files (PDF, DOCX, text decoding). */
    readonly parse_workers: number;
  };
  readonly output_protection: {
    readonly enabled: boolean;
    readonly mode: (typeof OUTPUT_PROTECTION_MODES)[number];
    readonly default_action: (typeof OUTPUT_PROTECTION_ACTIONS)[number];
    readonly exempt_types: readonly string[];
  };
  readonly prompt_security: { readonly enabled: boolean; readonly action: (typeof PROMPT_SECURITY_ACTIONS)[number] };
  readonly transform: {
    readonly context_strategy: ContextStrategy;
    readonly max_context_tokens: number;
    /** Inputs larger than this many bytes are detected on worker threads. */
    readonly offload_threshold_bytes: number;
  };
  /** Default of detect's include_values: true only in auth.mode dev unless configured. */
  readonly detect: { readonly include_values_default: boolean };
  /**
   * RAG settings. The corpus secret is not here (like the session secret it lives only in
   * LoadedConfig.corpusSecret). document_ttl_seconds: lifetime of ingest session_state and
   * chunk_session_state blobs; unset means session.ttl_seconds.
   */
  readonly rag: { readonly classification_levels: readonly string[]; readonly document_ttl_seconds?: number };
  readonly restore_templates: {
    /** Entity type -> partial-restore strategy. */
    readonly partial_formats: Readonly<Record<string, RestoreStrategyConfig>>;
    /** Language -> entity type -> abstract label (extends the built-in floor). */
    readonly abstract_labels: Readonly<Record<string, Readonly<Record<string, string>>>>;
  };
  readonly ocr: {
    readonly engine: (typeof OCR_ENGINES)[number];
    readonly languages: readonly string[];
    /** Bound on one recognition; the OCR worker is terminated and replaced past it. */
    readonly timeout_secs: number;
    /** Long-lived OCR worker threads, started on first use. */
    readonly workers: number;
    /** Images waiting for a free OCR worker beyond which requests get 503 VEIL_NOT_READY. */
    readonly max_queue: number;
  };
  readonly log: { readonly level: LogLevel; readonly format: LogFormat };
  /**
   * The OpenAI-compatible proxy (/openai/v1/*, docs/api.md). Without upstream_url its routes
   * answer 404. The upstream credential: upstream_api_key, or (pass_through_api_key, only in the
   * dev and api_key auth modes, where Veil does not read `Authorization` itself) the caller's
   * own `Authorization: Bearer` header.
   */
  readonly proxy: {
    readonly upstream_url?: string;
    readonly upstream_api_key?: Secret;
    readonly pass_through_api_key: boolean;
    /** Pass image, audio and file content parts (which Veil cannot inspect) to the upstream. */
    readonly allow_media_parts: boolean;
    /** Until the upstream answers (headers); a non-streamed answer's body too. */
    readonly timeout_secs: number;
    /** Longest silence between two pieces of a streamed upstream answer. */
    readonly stream_idle_timeout_secs: number;
    /** Largest upstream answer read (a streamed one in total), in bytes. */
    readonly max_response_bytes: number;
  };
  readonly otel: { readonly traces_endpoint?: string; readonly service_name: string };
}

// ---------------------------------------------------------------------------------------------
// The JSON Schema (draft-07, ajv's default). `default` values are filled in by ajv.

const text = { type: 'string', minLength: 1, maxLength: 4096 } as const;
const label = { type: 'string', pattern: '^[a-z0-9_-]+$', minLength: 1, maxLength: 128 } as const;
const entityType = { type: 'string', pattern: '^(custom:)?[a-z][a-z0-9_]{0,63}$' } as const;
const positiveInteger = { type: 'integer', minimum: 1 } as const;
const httpUrl = { type: 'string', format: 'http-url' } as const;

function section(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, default: {}, properties, ...extra };
}

/** The policy schema's restore_strategy rules, shared so the two cannot drift. */
const restoreStrategy = RESTORE_STRATEGY_SCHEMA;

const rateLimitOverride = {
  type: 'object',
  additionalProperties: false,
  properties: { requests_per_second: { type: 'number', exclusiveMinimum: 0 }, burst_size: positiveInteger },
} as const;

export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  // The shared restore_strategy schema refers to the policy schema's definitions.
  $defs: POLICY_SCHEMA.$defs,
  properties: {
    server: section({
      host: { ...text, default: '0.0.0.0' },
      port: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
      allowed_origins: { type: 'array', items: text, default: [] },
      tls: { type: 'object', additionalProperties: false, required: ['cert', 'key'], properties: { cert: text, key: text } },
      body_limit_bytes: { type: 'integer', minimum: 1024, maximum: 1073741824, default: 10485760 },
      workers: { type: 'integer', minimum: 1, maximum: MAX_WORKERS },
      shutdown_timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 25 },
      headers_timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 20 },
      request_timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 60 },
      idle_timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 60 },
      keep_alive_timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 72 },
      max_connections: { type: 'integer', minimum: 16, maximum: 1000000, default: 10000 },
      max_connections_per_source: { type: 'integer', minimum: 0, maximum: 1000000, default: 0 },
      memory_budget_mb: { type: 'integer', minimum: 128, maximum: 1048576 },
      trust_proxy: {
        anyOf: [{ type: 'boolean' }, { type: 'integer', minimum: 1, maximum: 32 }, { type: 'array', minItems: 1, maxItems: 64, items: text }],
        default: false,
      },
    }),
    auth: section({
      mode: { type: 'string', enum: AUTH_MODES, default: 'dev' },
      api_keys_file: text,
      api_keys_directory: text,
      api_keys: {
        type: 'array',
        default: [],
        items: {
          type: 'object',
          additionalProperties: false,
          // Exactly one of key and key_sha256 (checked in load.ts and reload/api-keys.ts, so the
          // message can say so plainly).
          required: ['identity'],
          properties: {
            key: { type: 'string', minLength: MIN_API_KEY_LENGTH, maxLength: 4096 },
            key_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            identity: text,
            // Same spelling as tenants.<id> keys (auth/principal.ts TENANT_ID_PATTERN).
            tenant_id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' },
            scopes: { type: 'array', uniqueItems: true, items: { type: 'string', enum: AUTH_SCOPES } },
            role: text,
            purpose: text,
            access_level: label,
          },
        },
      },
      jwt: {
        type: 'object',
        additionalProperties: false,
        properties: {
          secret: { type: 'string', maxLength: 4096 },
          issuer: text,
          audience: text,
          algorithms: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: JWT_ALGORITHMS }, default: ['HS256'] },
        },
      },
      oidc: {
        type: 'object',
        additionalProperties: false,
        properties: {
          issuer: text,
          jwks_url: httpUrl,
          audience: text,
          tenant_claim: { ...text, default: 'tenant_id' },
          algorithms: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: OIDC_ALGORITHMS }, default: ['RS256'] },
        },
      },
      failure_limit: section({
        enabled: { type: 'boolean', default: true },
        burst: { type: 'integer', minimum: 1, maximum: 100000, default: 20 },
        per_minute: { type: 'number', exclusiveMinimum: 0, maximum: 600000, default: 10 },
        max_sources: { type: 'integer', minimum: 1, maximum: 10000000, default: 100000 },
      }),
    }),
    session: section({
      backend: { type: 'string', enum: SESSION_BACKENDS, default: 'sealed' },
      secret: { type: 'string' },
      keyring_file: text,
      keyring_directory: text,
      keyring: {
        type: 'object',
        additionalProperties: false,
        required: ['current_kid', 'keys'],
        properties: {
          current_kid: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
          keys: {
            type: 'array',
            minItems: 1,
            maxItems: 16,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['kid', 'secret'],
              properties: { kid: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, secret: { type: 'string' } },
            },
          },
        },
      },
      ttl_seconds: { type: 'integer', minimum: 1, maximum: 2592000, default: 3600 },
      clock_skew_seconds: { type: 'integer', minimum: 0, maximum: 3600, default: 60 },
      redis_url: { type: 'string', format: 'redis-url' },
    }),
    revocation_backend: { type: 'string', enum: STORE_BACKENDS, default: 'memory' },
    replay_backend: { type: 'string', enum: STORE_BACKENDS, default: 'memory' },
    idempotency: section({
      backend: { type: 'string', enum: STORE_BACKENDS, default: 'memory' },
      ttl_seconds: { ...positiveInteger, default: 86400 },
      in_progress_ttl_seconds: { ...positiveInteger, default: 60 },
    }),
    storage: section({
      sqlite_path: text,
      digest_secret: text,
      memory_limits: section(capacitySection(MEMORY_LIMIT_DEFAULTS)),
      // No schema defaults: they depend on the backend and the caps (services/stores.ts).
      tenant_quotas: section(capacitySection({})),
      allow_non_durable_redis: { type: 'boolean', default: false },
    }),
    detector: section({
      mode: { type: 'string', enum: DETECTOR_MODES, default: 'builtin' },
      advanced_url: httpUrl,
      api_key: { type: 'string', minLength: 1, maxLength: 4096 },
      default_language: { type: 'string', pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$', default: 'en' },
      default_region: { type: 'string', pattern: '^[A-Z]{2}$', default: 'US' },
      timeout_secs: { type: 'number', exclusiveMinimum: 0, maximum: MAX_DETECTOR_TIMEOUT_SECS, default: 5 },
      // Under the sidecar's VEIL_NER_MAX_TEXT_CHARS (100,000) and small enough that one call
      // (about 25 µs per character on one CPU core) stays well inside timeout_secs.
      ner_piece_chars: { type: 'integer', minimum: 1000, maximum: 1000000, default: 10000 },
      ner_concurrency: { type: 'integer', minimum: 1, maximum: 64, default: 2 },
      ner_max_in_flight: { type: 'integer', minimum: 1, maximum: 256, default: 4 },
    }),
    policy: section({
      directory: text,
      default: label,
      watch: { type: 'boolean', default: false },
      watch_debounce_ms: { type: 'integer', minimum: 0, maximum: 600000, default: 2000 },
    }),
    audit: section({
      backend: { type: 'string', enum: AUDIT_BACKENDS, default: 'log' },
      path: text,
      strict: { type: 'boolean', default: false },
      allow_ephemeral: { type: 'boolean', default: false },
      hmac_key: text,
    }),
    rate_limit: section({
      enabled: { type: 'boolean', default: false },
      requests_per_second: { type: 'number', exclusiveMinimum: 0, default: 100 },
      burst_size: { ...positiveInteger, default: 200 },
      bytes_per_unit: { type: 'integer', minimum: 1024, maximum: 1073741824, default: 65536 },
      entities_per_unit: { type: 'integer', minimum: 1, maximum: 1000000, default: 100 },
    }),
    tenants: {
      type: 'object',
      default: {},
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' },
      additionalProperties: { type: 'object', additionalProperties: false, properties: { rate_limit: rateLimitOverride } },
    },
    tenants_directory: text,
    // The ceiling is checked in load.ts so the message can name it.
    limits: section({
      max_batch_size: { ...positiveInteger, default: 100 },
      max_stream_seconds: { type: 'integer', minimum: 1, maximum: 86400, default: 600 },
      stream_write_timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 30 },
      max_large_requests: { type: 'integer', minimum: 1, maximum: 10000, default: 8 },
      max_streams: { type: 'integer', minimum: 1, maximum: 100000, default: 256 },
      max_offload_queue: { type: 'integer', minimum: 0, maximum: 100000, default: 64 },
      max_json_object_keys: { type: 'integer', minimum: 16, maximum: 10000000, default: 10000 },
      max_json_values: { type: 'integer', minimum: 1000, maximum: 100000000, default: 200000 },
    }),
    file_upload: section({
      max_size_bytes: { type: 'integer', minimum: 1, maximum: 1073741824, default: 52428800 },
      max_pixels: { type: 'integer', minimum: 1, maximum: 1000000000, default: 25000000 },
      max_text_chars: { type: 'integer', minimum: 1, maximum: 536870888, default: 10485760 },
      max_uncompressed_bytes: { type: 'integer', minimum: 1, maximum: 4294967295, default: 104857600 },
      max_archive_entries: { type: 'integer', minimum: 1, maximum: 65535, default: 5000 },
      parse_timeout_secs: { type: 'number', exclusiveMinimum: 0, maximum: 600, default: 30 },
      parse_memory_mb: { type: 'integer', minimum: 32, maximum: 65536, default: 256 },
      parse_workers: { type: 'integer', minimum: 1, maximum: 64, default: 1 },
    }),
    output_protection: section({
      enabled: { type: 'boolean', default: true },
      mode: { type: 'string', enum: OUTPUT_PROTECTION_MODES, default: 'strict' },
      default_action: { type: 'string', enum: OUTPUT_PROTECTION_ACTIONS, default: 'mask' },
      exempt_types: { type: 'array', uniqueItems: true, items: entityType, default: [] },
    }),
    prompt_security: section({
      enabled: { type: 'boolean', default: true },
      action: { type: 'string', enum: PROMPT_SECURITY_ACTIONS, default: 'strip' },
    }),
    transform: section({
      context_strategy: { type: 'string', enum: CONTEXT_STRATEGIES, default: 'full' },
      max_context_tokens: { type: 'integer', minimum: 0, default: 4096 },
      offload_threshold_bytes: { type: 'integer', minimum: 0, default: 65536 },
    }),
    detect: section({ include_values_default: { type: 'boolean' } }),
    rag: section({
      classification_levels: {
        type: 'array',
        minItems: 1,
        maxItems: 64,
        uniqueItems: true,
        items: label,
        default: ['public', 'internal', 'confidential', 'restricted'],
      },
      corpus_secret: text,
      document_ttl_seconds: { type: 'integer', minimum: 1, maximum: 31622400 },
    }),
    restore_templates: section({
      partial_formats: {
        type: 'object',
        default: {},
        propertyNames: { pattern: '^(custom:)?[a-z][a-z0-9_]{0,63}$' },
        additionalProperties: restoreStrategy,
      },
      abstract_labels: {
        type: 'object',
        default: {},
        propertyNames: { pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$' },
        additionalProperties: {
          type: 'object',
          propertyNames: { pattern: '^(custom:)?[a-z][a-z0-9_]{0,63}$' },
          additionalProperties: { type: 'string', minLength: 1, maxLength: 256 },
        },
      },
    }),
    ocr: section({
      engine: { type: 'string', enum: OCR_ENGINES, default: 'tesseract' },
      languages: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', pattern: '^[a-z]{3}(_[a-z]{2,8})?$' }, default: ['eng'] },
      timeout_secs: { type: 'number', exclusiveMinimum: 0, maximum: 600, default: 60 },
      workers: { type: 'integer', minimum: 1, maximum: 64, default: 1 },
      max_queue: { type: 'integer', minimum: 0, maximum: 10000, default: 32 },
    }),
    log: section({
      level: { type: 'string', enum: LOG_LEVELS, default: 'info' },
      format: { type: 'string', enum: LOG_FORMATS, default: 'text' },
    }),
    otel: section({ traces_endpoint: httpUrl, service_name: { ...text, default: 'veil-server' } }),
    proxy: section({
      upstream_url: httpUrl,
      upstream_api_key: { type: 'string', minLength: 1, maxLength: 4096 },
      pass_through_api_key: { type: 'boolean', default: false },
      allow_media_parts: { type: 'boolean', default: false },
      timeout_secs: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: 120 },
      stream_idle_timeout_secs: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: 60 },
      max_response_bytes: { type: 'integer', minimum: 1024, maximum: 1073741824, default: 16777216 },
    }),
  },
} as const;
