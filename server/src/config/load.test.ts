// Tests of the configuration loader (decisions.md section 10): defaults, precedence of file,
// environment and overrides, every flat alias, one ConfigError listing every problem, secret
// encodings (and that no secret text ever appears in an error), and key-ring construction.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load.js';
import type { LoadOptions } from './load.js';
import { CONFIG_SCHEMA, MAX_BATCH_SIZE_CEILING } from './schema.js';
import { Secret, kidForSecret, parseSecret } from './secrets.js';

const HEX_SECRET = '5e'.repeat(32);
const BASE64_SECRET = Buffer.from(HEX_SECRET, 'hex').toString('base64');
const OTHER_HEX = '6f'.repeat(32);
const directory = mkdtempSync(join(tmpdir(), 'veil-config-'));
let fileCounter = 0;

function writeConfig(yaml: string): string {
  const file = join(directory, `config-${fileCounter++}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

/** Load with a fixed secret unless the test says otherwise. */
function load(options: Partial<LoadOptions> = {}): ReturnType<typeof loadConfig> {
  return loadConfig({ env: { VEIL_SESSION_SECRET: HEX_SECRET, ...(options.env ?? {}) }, ...(options.file !== undefined ? { file: options.file } : {}), ...(options.overrides !== undefined ? { overrides: options.overrides } : {}) });
}

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** Problems without the "(set by ...)" attribution, for tests that only check the rule. */
function bare(problems: readonly string[]): string[] {
  return problems.map((problem) => problem.replace(/ \(set by [^)]*\)$/, ''));
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(isDeepFrozen);
}

describe('the schema', () => {
  // The loader compiles CONFIG_SCHEMA without ajv's meta-schema check (a start-up cost); the
  // check happens here, with the loader's options and its two custom formats.
  it('is a valid JSON Schema under the options the loader compiles it with', () => {
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, unicodeRegExp: true });
    ajv.addFormat('http-url', { type: 'string', validate: () => true });
    ajv.addFormat('redis-url', { type: 'string', validate: () => true });
    expect(ajv.validateSchema(CONFIG_SCHEMA), ajv.errorsText()).toBe(true);
    expect(() => ajv.compile(CONFIG_SCHEMA)).not.toThrow();
  });

  it('still fails to compile in strict mode on an unknown keyword (the meta-schema check is not what catches it)', () => {
    const ajv = new Ajv({ strict: true, validateSchema: false });
    expect(() => ajv.compile({ type: 'object', properties: { a: { type: 'string', minLenght: 1 } } })).toThrow(/unknown keyword/);
  });
});

describe('defaults', () => {
  it('starts with no file and no environment (dev mode, generated secret)', () => {
    const loaded = loadConfig({ env: {} });
    const config = loaded.config;
    expect(config.server).toEqual({
      host: '0.0.0.0',
      port: 3000,
      allowed_origins: [],
      body_limit_bytes: 10 * 1024 * 1024,
      shutdown_timeout_seconds: 25,
      trust_proxy: false,
      headers_timeout_seconds: 20,
      request_timeout_seconds: 60,
      idle_timeout_seconds: 60,
      keep_alive_timeout_seconds: 72,
      max_connections: 10000,
      max_connections_per_source: 0,
    });
    expect(config.auth).toEqual({ mode: 'dev', api_keys: [], failure_limit: { enabled: true, burst: 20, per_minute: 10, max_sources: 100000 } });
    expect(config.session).toEqual({ backend: 'sealed', ttl_seconds: 3600, clock_skew_seconds: 60 });
    expect(config.storage).toEqual({
      allow_non_durable_redis: false,
      memory_limits: {
        revocations: 500000,
        replay_records: 500000,
        idempotency_records: 100000,
        idempotency_bytes: 134217728,
        sessions: 100000,
        session_bytes: 134217728,
      },
      tenant_quotas: {},
    });
    expect(config.revocation_backend).toBe('memory');
    expect(config.replay_backend).toBe('memory');
    expect(config.idempotency).toEqual({ backend: 'memory', ttl_seconds: 86400, in_progress_ttl_seconds: 60 });
    expect(config.detector).toEqual({ mode: 'builtin', default_language: 'en', default_region: 'US', timeout_secs: 5, ner_piece_chars: 10000, ner_concurrency: 2, ner_max_in_flight: 4 });
    expect(config.policy).toEqual({ watch: false, watch_debounce_ms: 2000 });
    expect(config.audit).toEqual({ backend: 'log', strict: false, allow_ephemeral: false });
    expect(config.rate_limit).toEqual({ enabled: false, requests_per_second: 100, burst_size: 200, bytes_per_unit: 65536, entities_per_unit: 100 });
    expect(config.tenants).toEqual({});
    expect(config.limits).toEqual({
      max_batch_size: 100,
      max_stream_seconds: 600,
      stream_write_timeout_seconds: 30,
      max_large_requests: 8,
      max_streams: 256,
      max_offload_queue: 64,
      max_json_object_keys: 10000,
      max_json_values: 200000,
    });
    expect(config.file_upload).toEqual({
      max_size_bytes: 52428800,
      max_pixels: 25000000,
      max_text_chars: 10485760,
      max_uncompressed_bytes: 104857600,
      max_archive_entries: 5000,
      parse_timeout_secs: 30,
      parse_memory_mb: 256,
      parse_workers: 1,
    });
    expect(config.output_protection).toEqual({ enabled: true, mode: 'strict', default_action: 'mask', exempt_types: [] });
    expect(config.prompt_security).toEqual({ enabled: true, action: 'strip' });
    expect(config.transform).toEqual({ context_strategy: 'full', max_context_tokens: 4096, offload_threshold_bytes: 65536 });
    expect(config.detect).toEqual({ include_values_default: true });
    expect(config.rag).toEqual({ classification_levels: ['public', 'internal', 'confidential', 'restricted'] });
    expect(config.restore_templates).toEqual({ partial_formats: {}, abstract_labels: {} });
    expect(config.ocr).toEqual({ engine: 'tesseract', languages: ['eng'], timeout_secs: 60, workers: 1, max_queue: 32 });
    expect(config.log).toEqual({ level: 'info', format: 'text' });
    expect(config.otel).toEqual({ service_name: 'veil-server' });

    expect(loaded.generatedSecret).toBe(true);
    expect(loaded.serverSecret).toHaveLength(32);
    expect(loaded.keyRing.kids).toEqual([kidForSecret(loaded.serverSecret)]);
    expect(loaded.warnings.join('\n')).toMatch(/not survive a restart/);
    expect(loadConfig({ env: {} }).serverSecret.equals(loaded.serverSecret)).toBe(false);
  });

  it('deep-freezes the configuration', () => {
    const { config } = load();
    expect(isDeepFrozen(config)).toBe(true);
    expect(() => {
      (config.server as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('defaults detect.include_values_default to true only in dev mode', () => {
    expect(load().config.detect.include_values_default).toBe(true);
    const apiKey = load({ env: { VEIL_AUTH__MODE: 'api_key', VEIL_ALLOW_EPHEMERAL_AUDIT: '1' } });
    expect(apiKey.config.detect.include_values_default).toBe(false);
    expect(load({ env: { VEIL_DETECT__INCLUDE_VALUES_DEFAULT: 'false' } }).config.detect.include_values_default).toBe(false);
  });
});

describe('precedence', () => {
  const file = writeConfig('server:\n  port: 4000\n  host: 127.0.0.1\nlimits:\n  max_batch_size: 10\n');

  it('applies file, then environment, then overrides', () => {
    expect(load({ file }).config.server.port).toBe(4000);
    expect(load({ file, env: { VEIL_PORT: '5000' } }).config.server.port).toBe(5000);
    expect(load({ file, env: { VEIL_PORT: '5000' }, overrides: { server: { port: 6000 } } }).config.server.port).toBe(6000);
    expect(load({ file, overrides: { 'server.port': 7000 } }).config.server.port).toBe(7000);
    // Untouched file values survive a partial override of the same section.
    const loaded = load({ file, env: { VEIL_PORT: '5000' }, overrides: { server: { port: 6000 } } });
    expect(loaded.config.server.host).toBe('127.0.0.1');
    expect(loaded.config.limits.max_batch_size).toBe(10);
  });

  it('lets a flat alias win over the nested variable', () => {
    expect(load({ env: { VEIL_SERVER__PORT: '5001', VEIL_PORT: '5002' } }).config.server.port).toBe(5002);
  });

  it('does not mutate the caller’s override objects', () => {
    const overrides = { server: { port: 6001 } };
    load({ overrides });
    expect(overrides).toEqual({ server: { port: 6001 } });
  });

  it('treats empty variables as unset', () => {
    expect(load({ file, env: { VEIL_PORT: '' } }).config.server.port).toBe(4000);
  });
});

describe('environment variables', () => {
  it('maps every flat alias', () => {
    const loaded = load({
      env: {
        VEIL_HOST: '::1',
        VEIL_PORT: '8443',
        VEIL_MAX_BATCH_SIZE: '250',
        VEIL_CORS_ORIGINS: 'https://a.example, https://b.example,',
        VEIL_ALLOW_EPHEMERAL_AUDIT: 'true',
        VEIL_LOG_FORMAT: 'json',
        VEIL_LOG_LEVEL: 'debug',
        VEIL_DETECTOR_TIMEOUT_SECS: '2.5',
        VEIL_OTEL_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        VEIL_OTEL_SERVICE_NAME: 'veil-test',
        VEIL_CONFIG: '/ignored/by/the/loader.yaml',
      },
    });
    const config = loaded.config;
    expect(config.server.host).toBe('::1');
    expect(config.server.port).toBe(8443);
    expect(config.limits.max_batch_size).toBe(250);
    expect(config.server.allowed_origins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.audit.allow_ephemeral).toBe(true);
    expect(config.log).toEqual({ level: 'debug', format: 'json' });
    expect(config.detector.timeout_secs).toBe(2.5);
    expect(config.otel).toEqual({ traces_endpoint: 'http://collector:4318/v1/traces', service_name: 'veil-test' });
    expect(loaded.keyRing.kids).toEqual([kidForSecret(Buffer.from(HEX_SECRET, 'hex'))]);
    expect(loaded.generatedSecret).toBe(false);
    expect(loaded.serverSecret.toString('hex')).toBe(HEX_SECRET);
  });

  it('parses VEIL_ALLOW_EPHEMERAL_AUDIT as 1/true/0/false only', () => {
    expect(load({ env: { VEIL_ALLOW_EPHEMERAL_AUDIT: '1' } }).config.audit.allow_ephemeral).toBe(true);
    expect(load({ env: { VEIL_ALLOW_EPHEMERAL_AUDIT: '0' } }).config.audit.allow_ephemeral).toBe(false);
    expect(problemsOf(() => load({ env: { VEIL_ALLOW_EPHEMERAL_AUDIT: 'yes' } }))).toEqual(['VEIL_ALLOW_EPHEMERAL_AUDIT: must be 1, true, 0 or false']);
  });

  it('nests with double underscores and parses values as YAML', () => {
    const { config } = load({
      env: {
        VEIL_RAG__CLASSIFICATION_LEVELS: '[open, secret]',
        VEIL_RATE_LIMIT__ENABLED: 'true',
        VEIL_TENANTS__ACME__RATE_LIMIT__BURST_SIZE: '5',
        VEIL_REVOCATION_BACKEND: 'sqlite',
        VEIL_STORAGE__SQLITE_PATH: '/var/lib/veil/veil.db',
        VEIL_OUTPUT_PROTECTION: '{mode: permissive, exempt_types: [email]}',
      },
    });
    expect(config.rag.classification_levels).toEqual(['open', 'secret']);
    expect(config.rate_limit.enabled).toBe(true);
    expect(config.tenants).toEqual({ acme: { rate_limit: { burst_size: 5 } } });
    expect(config.revocation_backend).toBe('sqlite');
    expect(config.storage.sqlite_path).toBe('/var/lib/veil/veil.db');
    expect(config.output_protection).toEqual({ enabled: true, mode: 'permissive', default_action: 'mask', exempt_types: ['email'] });
  });

  it('takes string keys verbatim (no YAML reinterpretation)', () => {
    const digitsOnly = '1234567890'.repeat(6) + '1234';
    const loaded = loadConfig({ env: { VEIL_SESSION__SECRET: digitsOnly, VEIL_SERVER__HOST: '::', VEIL_POLICY__DEFAULT: 'null' } });
    expect(loaded.serverSecret.toString('hex')).toBe(digitsOnly);
    expect(loaded.config.server.host).toBe('::');
    expect(loaded.config.policy.default).toBe('null');
  });

  it('rejects unknown VEIL_ variables, even empty ones, and ignores other variables', () => {
    const problems = problemsOf(() => load({ env: { VEIL_PROT: '8080', VEIL_SERVER__PROT: '1', VEIL_NOPE: '', PATH: '/bin', VEILX: '1' } }));
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toContain('VEIL_PROT: unknown configuration variable');
    expect(problems.join('\n')).toContain('VEIL_SERVER__PROT: unknown configuration variable');
    expect(problems.join('\n')).toContain('VEIL_NOPE: unknown configuration variable');
    expect(problemsOf(() => load({ env: { VEIL___PROTO__: '{}' } }))[0]).toMatch(/^VEIL___PROTO__: unknown/);
  });

  it("skips the build and test scripts' own VEIL_ variables with a warning, and still refuses near misses", () => {
    const loaded = load({ env: { VEIL_NODE_MAJOR: '24', VEIL_E2E_KUBECONFIG: '/tmp/kubeconfig', VEIL_K8S_NO_BUILD: '1', VEIL_BIN: '/usr/bin/veil' } });
    expect(loaded.warnings.join('\n')).toContain('ignored VEIL_BIN, VEIL_E2E_KUBECONFIG, VEIL_K8S_NO_BUILD, VEIL_NODE_MAJOR');
    for (const variable of ['VEIL_NODE', 'VEIL_NODE__MAJOR', 'VEIL_SERVER__NODE_MAJOR', 'VEIL_NODES_MAJOR']) {
      const problems = problemsOf(() => load({ env: { [variable]: '24' } }));
      expect(problems.join('\n'), variable).toContain(`${variable}: unknown configuration variable`);
    }
  });

  it('skips Kubernetes service-link variables with a warning', () => {
    const loaded = load({
      env: {
        VEIL_SERVICE_HOST: '10.0.0.1',
        VEIL_SERVICE_PORT: '3000',
        VEIL_SERVICE_PORT_HTTP: '3000',
        VEIL_PORT: 'tcp://10.0.0.1:3000',
        VEIL_PORT_3000_TCP: 'tcp://10.0.0.1:3000',
        VEIL_PORT_3000_TCP_PROTO: 'tcp',
        VEIL_PORT_3000_TCP_PORT: '3000',
        VEIL_PORT_3000_TCP_ADDR: '10.0.0.1',
        VEIL_NER_SERVICE_HOST: '10.0.0.2',
        VEIL_NER_PORT: 'tcp://10.0.0.2:8000',
      },
    });
    expect(loaded.config.server.port).toBe(3000);
    expect(loaded.warnings.join('\n')).toMatch(/ignored 10 Kubernetes service-link variable/);
    // A real VEIL_PORT is still the alias, and a nested key is never taken for a link.
    expect(load({ env: { VEIL_PORT: '8080' } }).config.server.port).toBe(8080);
    expect(problemsOf(() => load({ env: { VEIL_SERVER__SERVICE_HOST: 'x' } }))[0]).toMatch(/unknown configuration variable/);
  });

  it('reports invalid YAML values by variable name only', () => {
    const problems = problemsOf(() => load({ env: { VEIL_PORT: '[unclosed-canary' } }));
    expect(problems).toEqual(['VEIL_PORT: not a valid YAML value']);
  });

  it('attributes schema problems to the variable that set the key', () => {
    expect(problemsOf(() => load({ env: { VEIL_PORT: 'eighty' } }))).toEqual(['server.port: must be integer (set by VEIL_PORT)']);
  });
});

describe('problems are all listed at once', () => {
  it('collects unknown keys, bad types, bad enums, unknown variables and cross-field errors', () => {
    const file = writeConfig(
      [
        'server:',
        '  port: "eighty"',
        '  colour: blue',
        'auth:',
        '  mode: magic',
        'unknown_section: {}',
        'detector:',
        '  mode: advanced',
        '  timeout_secs: 500',
        'limits:',
        `  max_batch_size: ${MAX_BATCH_SIZE_CEILING + 1}`,
        'restore_templates:',
        '  partial_formats:',
        '    credit_card: {kind: reveal_last_n}',
        '',
      ].join('\n'),
    );
    const problems = problemsOf(() => load({ file, env: { VEIL_TYPO: '1' } }));
    const text = problems.join('\n');
    for (const expected of [
      'VEIL_TYPO: unknown configuration variable',
      'server.port: must be integer',
      'server.colour: unknown key',
      'auth.mode: must be one of dev, api_key, jwt, oidc',
      'unknown_section: unknown key',
      'detector.timeout_secs: must be <= 120',
      'detector.advanced_url: is required when detector.mode is advanced',
      `limits.max_batch_size: must not exceed the built-in ceiling of ${MAX_BATCH_SIZE_CEILING}`,
      'restore_templates.partial_formats.credit_card.n: is required',
    ]) {
      expect(text).toContain(expected);
    }
    expect(problems.length).toBeGreaterThanOrEqual(9);
  });

  it('accepts max_batch_size at the ceiling and rejects it above', () => {
    expect(load({ env: { VEIL_MAX_BATCH_SIZE: String(MAX_BATCH_SIZE_CEILING) } }).config.limits.max_batch_size).toBe(MAX_BATCH_SIZE_CEILING);
    expect(problemsOf(() => load({ env: { VEIL_MAX_BATCH_SIZE: '1001' } }))).toEqual([
      `limits.max_batch_size: must not exceed the built-in ceiling of ${MAX_BATCH_SIZE_CEILING}`,
    ]);
    expect(problemsOf(() => load({ env: { VEIL_MAX_BATCH_SIZE: '0' } }))[0]).toMatch(/^limits\.max_batch_size: must be >= 1/);
  });

  it('rejects detector.timeout_secs above 120', () => {
    expect(problemsOf(() => load({ env: { VEIL_DETECTOR_TIMEOUT_SECS: '121' } }))[0]).toMatch(/^detector\.timeout_secs: must be <= 120/);
    expect(load({ env: { VEIL_DETECTOR_TIMEOUT_SECS: '120' } }).config.detector.timeout_secs).toBe(120);
  });

  it('takes detector.default_region as a known two-letter region', () => {
    expect(load({ env: { VEIL_DETECTOR__DEFAULT_REGION: 'GB' } }).config.detector.default_region).toBe('GB');
    expect(problemsOf(() => load({ env: { VEIL_DETECTOR__DEFAULT_REGION: 'gb' } }))[0]).toMatch(/^detector\.default_region: must match pattern/);
    expect(problemsOf(() => load({ env: { VEIL_DETECTOR__DEFAULT_REGION: 'ZZ' } }))).toEqual([
      'detector.default_region: is not a region with a phone numbering plan (ISO 3166-1 alpha-2, e.g. US, GB, DE)',
    ]);
  });

  it('checks cross-field requirements', () => {
    const problems = problemsOf(() =>
      load({
        overrides: {
          'idempotency.backend': 'redis',
          'replay_backend': 'sqlite',
          'audit.backend': 'file',
          'policy.watch': true,
        },
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'session.redis_url: is required when idempotency.backend is redis',
        'storage.sqlite_path: is required when replay_backend is sqlite',
        'audit.path: is required when audit.backend is file',
        'policy.directory: is required when policy.watch is true',
      ]),
    );
  });

  it('refuses a tenant quota above the memory cap of a memory store, not of a durable one', () => {
    const problems = problemsOf(() =>
      load({ overrides: { storage: { memory_limits: { revocations: 100, sessions: 10 }, tenant_quotas: { revocations: 101, idempotency_records: 200000, sessions: 11 } } } }),
    );
    expect(problems).toEqual([
      "storage.tenant_quotas.revocations: must not exceed storage.memory_limits.revocations (100), the memory store's global cap",
      "storage.tenant_quotas.idempotency_records: must not exceed storage.memory_limits.idempotency_records (100000), the memory store's global cap",
    ]);
    // session.backend is sealed (no memory session store), and a durable store has no memory cap.
    expect(() =>
      load({ overrides: { revocation_backend: 'sqlite', storage: { sqlite_path: join(directory, 'quota.db'), memory_limits: { revocations: 100 }, tenant_quotas: { revocations: 1000000 } } } }),
    ).not.toThrow();
  });

  it('reports YAML syntax errors by line without quoting the source', () => {
    const canary = 'canary-secret-value-93f1';
    const file = writeConfig(`server:\n  port: 3000\n  host: [${canary}\nauth: {mode: dev}\n`);
    const problems = problemsOf(() => load({ file }));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/YAML syntax error at line \d+, column \d+/);
    expect(problems.join('\n')).not.toContain(canary);
    const duplicate = writeConfig('server:\n  port: 1\n  port: 2\n');
    expect(problemsOf(() => load({ file: duplicate })).join('\n')).toMatch(/DUPLICATE_KEY/);
  });

  it('reports an unreadable file and a non-mapping top level', () => {
    expect(problemsOf(() => load({ file: join(directory, 'missing.yaml') }))[0]).toMatch(/cannot be read \(ENOENT\)/);
    expect(problemsOf(() => load({ file: writeConfig('- a\n- b\n') }))[0]).toMatch(/top level must be a mapping/);
    expect(load({ file: writeConfig('') }).config.server.port).toBe(3000);
  });

  it('does not let __proto__ keys pollute prototypes', () => {
    const file = writeConfig('__proto__:\n  polluted: true\nserver:\n  __proto__:\n    polluted: true\n');
    const problems = problemsOf(() => load({ file }));
    expect(problems).toEqual(expect.arrayContaining(['__proto__: unknown key', 'server.__proto__: unknown key']));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('secrets', () => {
  it('accepts 64 hex characters and standard base64 for the same key', () => {
    const fromHex = load({ env: { VEIL_SESSION_SECRET: HEX_SECRET } });
    const fromBase64 = load({ env: { VEIL_SESSION_SECRET: BASE64_SECRET } });
    expect(fromBase64.serverSecret.equals(fromHex.serverSecret)).toBe(true);
    expect(fromBase64.keyRing.currentKid).toBe(fromHex.keyRing.currentKid);
    expect(load({ env: { VEIL_SESSION_SECRET: HEX_SECRET.toUpperCase() } }).serverSecret.equals(fromHex.serverSecret)).toBe(true);
  });

  it.each([
    ['63 hex', HEX_SECRET.slice(1)],
    ['65 hex', `${HEX_SECRET}a`],
    ['16-byte hex', 'ab'.repeat(16)],
    ['base64url', Buffer.alloc(32, 0xfb).toString('base64url')],
    ['base64 without padding', BASE64_SECRET.slice(0, -1)],
    ['base64 of 31 bytes', Buffer.alloc(31, 7).toString('base64')],
    ['base64 of 33 bytes', Buffer.alloc(33, 7).toString('base64')],
    ['passphrase', 'correct horse battery staple correct horse'],
    ['hex with whitespace', ` ${HEX_SECRET}`],
  ])('rejects a %s secret without printing it', (_name, secret) => {
    for (const env of [{ VEIL_SESSION_SECRET: secret }, { VEIL_SESSION__SECRET: secret }]) {
      let error: unknown;
      try {
        loadConfig({ env });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const configError = error as ConfigError;
      expect(configError.problems).toHaveLength(1);
      expect(configError.problems[0]).toMatch(/must be 32 bytes written as 64 hex characters or standard base64/);
      expect(configError.message + configError.problems.join('')).not.toContain(secret.trim());
    }
  });

  it('rejects a non-canonical base64 secret', () => {
    // Same 32 bytes, but the last character carries non-zero unused bits.
    const canonical = Buffer.alloc(32, 0).toString('base64');
    const sloppy = `${canonical.slice(0, 42)}B=`;
    expect(Buffer.from(sloppy, 'base64')).toHaveLength(32);
    expect(parseSecret(sloppy)).toBeNull();
  });

  it('wraps credentials so logs and JSON never show them', () => {
    const apiKey = 'ak_live_canary_0123456789';
    const jwtSecret = 'jwt-canary-secret-0123456789abcdef-xyz';
    const loaded = load({
      overrides: {
        auth: { api_keys: [{ key: apiKey, identity: 'svc' }], jwt: { secret: jwtSecret, issuer: 'i', audience: 'a' } },
        detector: { api_key: 'sidecar-canary-key' },
      },
    });
    const config = loaded.config;
    const dump = `${JSON.stringify(config)}\n${inspect(config, { depth: 10 })}\n${String(config.auth.api_keys[0]!.key)}`;
    for (const secret of [apiKey, jwtSecret, 'sidecar-canary-key', HEX_SECRET]) expect(dump).not.toContain(secret);
    expect(config.auth.api_keys[0]!.key).toBeInstanceOf(Secret);
    expect(config.auth.api_keys[0]!.key?.reveal()).toBe(apiKey);
    expect(config.auth.jwt!.secret!.reveal()).toBe(jwtSecret);
    expect(config.detector.api_key!.reveal()).toBe('sidecar-canary-key');
    expect('secret' in config.session).toBe(false);
  });

  it('does not echo a secret pasted where a key name goes', () => {
    const file = writeConfig(`session:\n  ${HEX_SECRET}: true\n`);
    const problems = problemsOf(() => loadConfig({ file, env: {} }));
    expect(problems).toEqual(['session.<redacted key name>: unknown key']);
  });

  it('never prints a secret in any problem, whatever else is wrong', () => {
    const canaries = ['ak_canary_duplicate_key_1', 'short-jwt-canary'];
    const problems = problemsOf(() =>
      load({
        overrides: {
          auth: {
            mode: 'jwt',
            api_keys: [
              { key: canaries[0], identity: 'a' },
              { key: canaries[0], identity: 'b' },
            ],
            jwt: { secret: canaries[1] },
          },
        },
      }),
    );
    const text = problems.join('\n');
    expect(text).toContain('auth.api_keys[1].key: duplicates auth.api_keys[0].key');
    expect(text).toContain('auth.jwt.secret: must be at least 32 bytes (UTF-8)');
    expect(text).toContain('auth.jwt.issuer: is required when auth.mode is jwt');
    for (const canary of canaries) expect(text).not.toContain(canary);
  });
});

describe('api key access_level', () => {
  it('must name one of rag.classification_levels', () => {
    const problems = problemsOf(() =>
      load({ overrides: { auth: { mode: 'api_key', api_keys: [{ key: 'ak-level-0123456789abcdef', identity: 'a', access_level: 'top_secret' }] }, audit: { allow_ephemeral: true } } }),
    );
    expect(problems).toContain('auth.api_keys[0].access_level: must be one of rag.classification_levels');
    const custom = load({
      overrides: {
        auth: { mode: 'api_key', api_keys: [{ key: 'ak-level-0123456789abcdef', identity: 'a', access_level: 'top_secret' }] },
        rag: { classification_levels: ['open', 'top_secret'] },
        audit: { allow_ephemeral: true },
      },
    });
    expect(custom.config.auth.api_keys[0]?.access_level).toBe('top_secret');
  });
});

describe('key ring', () => {
  const ringYaml = (current: string, keys: [string, string][]): string =>
    `session:\n  keyring:\n    current_kid: ${current}\n    keys:\n${keys.map(([kid, secret]) => `      - {kid: ${kid}, secret: "${secret}"}`).join('\n')}\n`;

  it('builds a ring from session.keyring with the current kid’s secret as server secret', () => {
    const file = writeConfig(ringYaml('k2', [['k1', HEX_SECRET], ['k2', OTHER_HEX]]));
    const loaded = loadConfig({ file, env: {} });
    expect(loaded.keyRing.currentKid).toBe('k2');
    expect(loaded.keyRing.kids).toEqual(['k1', 'k2']);
    expect(loaded.keyRing.get('k1')!.toString('hex')).toBe(HEX_SECRET);
    expect(loaded.serverSecret.toString('hex')).toBe(OTHER_HEX);
    expect(loaded.generatedSecret).toBe(false);
    // A ring without rag.corpus_secret: corpus tokens would change at the kid switch.
    expect(loaded.warnings).toEqual([expect.stringMatching(/^rag: no corpus_secret configured/)]);
    expect(loaded.corpusSecret.equals(loaded.serverSecret)).toBe(true);
  });

  it('takes the corpus-token secret from rag.corpus_secret, never keeping it in the config', () => {
    const loaded = loadConfig({ env: { VEIL_SESSION_SECRET: HEX_SECRET, VEIL_CORPUS_SECRET: OTHER_HEX } });
    expect(loaded.corpusSecret.toString('hex')).toBe(OTHER_HEX);
    expect(loaded.serverSecret.toString('hex')).toBe(HEX_SECRET);
    expect(JSON.stringify(loaded.config)).not.toContain(OTHER_HEX);
    expect(loadConfig({ env: { VEIL_SESSION_SECRET: HEX_SECRET } }).corpusSecret.toString('hex')).toBe(HEX_SECRET);
    const file = writeConfig(`rag:\n  corpus_secret: "${OTHER_HEX.slice(2)}"\n  document_ttl_seconds: 86400\n`);
    const problems = problemsOf(() => loadConfig({ file, env: { VEIL_SESSION_SECRET: HEX_SECRET } }));
    expect(problems).toEqual(['rag.corpus_secret: must be 32 bytes written as 64 hex characters or standard base64']);
    expect(problems.join('\n')).not.toContain(OTHER_HEX.slice(2));
  });

  it('derives a stable kid for a single secret', () => {
    const first = loadConfig({ env: { VEIL_SESSION_SECRET: HEX_SECRET } });
    const second = loadConfig({ file: writeConfig(`session:\n  secret: "${HEX_SECRET}"\n`), env: {} });
    expect(first.keyRing.currentKid).toMatch(/^[0-9a-f]{8}$/);
    expect(second.keyRing.currentKid).toBe(first.keyRing.currentKid);
    expect(first.keyRing.currentKid).not.toBe(HEX_SECRET.slice(0, 8));
  });

  it('rejects a bad ring with every problem and no secret text', () => {
    const file = writeConfig(ringYaml('k9', [['k1', HEX_SECRET.slice(2)], ['k1', OTHER_HEX], ['bad kid', OTHER_HEX]]));
    const problems = problemsOf(() => loadConfig({ file, env: {} }));
    const text = problems.join('\n');
    expect(text).toContain('session.keyring.keys[0].secret: must be 32 bytes');
    expect(text).toContain('session.keyring.keys[1].kid: duplicates an earlier kid');
    expect(text).toContain('session.keyring.keys[2].kid: must match pattern');
    expect(text).toContain('session.keyring.current_kid: must be the kid of one of session.keyring.keys');
    expect(text).not.toContain(HEX_SECRET.slice(2));
    expect(text).not.toContain(OTHER_HEX);
  });

  it('rejects session.secret together with session.keyring', () => {
    const file = writeConfig(`${ringYaml('k1', [['k1', HEX_SECRET]])}  secret: "${OTHER_HEX}"\n`);
    expect(problemsOf(() => loadConfig({ file, env: {} }))).toEqual([
      'session.secret and session.keyring are both set: configure one (a key ring for rotation, a single secret otherwise)',
    ]);
  });

  it('lets VEIL_SESSION_SECRET replace a configured ring, with a warning', () => {
    const file = writeConfig(ringYaml('k1', [['k1', HEX_SECRET]]));
    const loaded = loadConfig({ file, env: { VEIL_SESSION_SECRET: OTHER_HEX } });
    expect(loaded.keyRing.kids).toEqual([kidForSecret(Buffer.from(OTHER_HEX, 'hex'))]);
    expect(loaded.serverSecret.toString('hex')).toBe(OTHER_HEX);
    expect(loaded.warnings.join('\n')).toMatch(/session\.keyring from the config file is ignored/);
  });
});

describe('auth and audit shape', () => {
  it('requires a durable strict audit trail (or a waiver) outside dev mode', () => {
    expect(problemsOf(() => load({ env: { VEIL_AUTH__MODE: 'api_key' } })).join('\n')).toMatch(/non-dev auth\.mode requires a durable, strict audit trail/);
    const durable = load({
      env: {
        VEIL_AUTH__MODE: 'api_key',
        VEIL_AUDIT__BACKEND: 'file',
        VEIL_AUDIT__STRICT: 'true',
        VEIL_AUDIT__PATH: '/var/log/veil/audit.log',
        VEIL_AUDIT__HMAC_KEY: '0123456789'.repeat(6) + '0123',
      },
    });
    // The HMAC key is decoded out of the config object (it must never be logged with it).
    expect(durable.config.audit).toEqual({ backend: 'file', path: '/var/log/veil/audit.log', strict: true, allow_ephemeral: false });
    expect(durable.auditKey?.toString('hex')).toBe('0123456789'.repeat(6) + '0123');
    expect(durable.warnings.join('\n')).toMatch(/api_keys is empty/);
  });

  it('requires a well-formed audit.hmac_key for the file backend, in every mode', () => {
    const missing = problemsOf(() => load({ env: { VEIL_AUDIT__BACKEND: 'file', VEIL_AUDIT__PATH: '/tmp/audit.log' } })).join('\n');
    expect(missing).toMatch(/audit\.hmac_key: is required when audit\.backend is file/);
    const wrong = problemsOf(() => load({ env: { VEIL_AUDIT__BACKEND: 'file', VEIL_AUDIT__PATH: '/tmp/audit.log', VEIL_AUDIT__HMAC_KEY: 'not-a-key-but-secret-text' } })).join('\n');
    expect(wrong).toMatch(/audit\.hmac_key: /);
    expect(wrong).not.toContain('not-a-key-but-secret-text');
    expect(load({}).auditKey).toBeUndefined();
  });

  it('validates api_keys entries', () => {
    const problems = bare(problemsOf(() =>
      load({ overrides: { 'auth.api_keys': [{ key: 'short', identity: 'a' }, { identity: 'b' }, { key: 'k'.repeat(20), identity: 'c', scopes: ['transform', 'superuser'] }] } }),
    ));
    expect(problems).toEqual(
      expect.arrayContaining([
        'auth.api_keys[0].key: must NOT have fewer than 16 characters',
        'auth.api_keys[1].key: is required',
        expect.stringMatching(/^auth\.api_keys\[2\]\.scopes\[1\]: must be one of transform, rehydrate/),
      ]),
    );
    const ok = load({ overrides: { 'auth.api_keys': [{ key: 'k'.repeat(20), identity: 'svc', tenant_id: 't1', scopes: ['transform', 'rehydrate'], role: 'agent', purpose: 'support' }] } });
    expect(ok.config.auth.api_keys[0]).toMatchObject({ identity: 'svc', tenant_id: 't1', scopes: ['transform', 'rehydrate'], role: 'agent', purpose: 'support' });
  });

  it('validates jwt and oidc sections', () => {
    const jwt = load({
      env: { VEIL_AUTH__MODE: 'jwt', VEIL_ALLOW_EPHEMERAL_AUDIT: '1' },
      overrides: { 'auth.jwt': { secret: 'x'.repeat(32), issuer: 'https://issuer', audience: 'veil' } },
    });
    expect(jwt.config.auth.jwt!.algorithms).toEqual(['HS256']);
    expect(problemsOf(() => load({ overrides: { 'auth.jwt': { algorithms: ['RS256'] } } }))[0]).toMatch(/^auth\.jwt\.algorithms\[0\]: must be one of HS256/);

    const oidcProblems = bare(problemsOf(() =>
      load({ env: { VEIL_AUTH__MODE: 'oidc', VEIL_ALLOW_EPHEMERAL_AUDIT: '1' }, overrides: { 'auth.oidc': { issuer: 'https://id', jwks_url: 'not a url', algorithms: ['HS256'] } } }),
    ));
    expect(oidcProblems).toEqual(
      expect.arrayContaining([
        'auth.oidc.jwks_url: must match format "http-url"',
        expect.stringMatching(/^auth\.oidc\.algorithms\[0\]: must be one of RS256/),
        'auth.oidc.audience: is required when auth.mode is oidc',
      ]),
    );
    const oidc = load({
      env: { VEIL_AUTH__MODE: 'oidc', VEIL_ALLOW_EPHEMERAL_AUDIT: '1' },
      overrides: { 'auth.oidc': { issuer: 'https://id', jwks_url: 'https://id/jwks', audience: 'veil' } },
    });
    expect(oidc.config.auth.oidc).toEqual({ issuer: 'https://id', jwks_url: 'https://id/jwks', audience: 'veil', tenant_claim: 'tenant_id', algorithms: ['RS256'] });
  });
});

describe('restore templates', () => {
  it('accepts valid strategies and labels', () => {
    const file = writeConfig(
      [
        'restore_templates:',
        '  partial_formats:',
        '    credit_card: {kind: reveal_last_n, n: 4, mask_char: "#"}',
        '    custom:ticket: {kind: mask}',
        '    date: {kind: bucket, ranges: [{max: 2000, label: old}, {min: 2000, label: new}]}',
        '  abstract_labels:',
        '    de: {email: E-Mail-Adresse}',
      ].join('\n'),
    );
    const { config } = load({ file });
    expect(config.restore_templates.partial_formats.credit_card).toEqual({ kind: 'reveal_last_n', n: 4, mask_char: '#' });
    expect(config.restore_templates.abstract_labels).toEqual({ de: { email: 'E-Mail-Adresse' } });
  });

  it('rejects unknown kinds, extra parameters and bad names', () => {
    const problems = bare(problemsOf(() =>
      load({
        overrides: {
          'restore_templates.partial_formats': { email: { kind: 'reveal_all' }, phone: { kind: 'mask', n: 2 }, 'Bad-Type': { kind: 'mask' } },
        },
      }),
    ));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^restore_templates\.partial_formats\.email\.kind: must be one of reveal_last_n/),
        'restore_templates.partial_formats.phone.n: unknown key',
        'restore_templates.partial_formats.Bad-Type: invalid key name',
      ]),
    );
  });
});

describe('proxy', () => {
  it('wraps the upstream key as a Secret, defaults the bounds, and refuses pass-through with bearer-token auth', () => {
    const loaded = load({ env: { VEIL_PROXY__UPSTREAM_URL: 'https://api.example.com/v1', VEIL_PROXY__UPSTREAM_API_KEY: 'sk-upstream-secret-value' } });
    const proxy = loaded.config.proxy;
    expect(proxy.upstream_url).toBe('https://api.example.com/v1');
    expect(proxy.upstream_api_key?.reveal()).toBe('sk-upstream-secret-value');
    expect(JSON.stringify(loaded.config)).not.toContain('sk-upstream-secret-value');
    expect(proxy).toMatchObject({ pass_through_api_key: false, allow_media_parts: false, timeout_secs: 120, stream_idle_timeout_secs: 60, max_response_bytes: 16777216 });
    expect(bare(problemsOf(() => load({ env: { VEIL_PROXY__UPSTREAM_URL: 'ftp://example.com' } })))).toEqual(['proxy.upstream_url: must match format "http-url"']);
    const jwt = problemsOf(() =>
      load({
        env: { VEIL_PROXY__PASS_THROUGH_API_KEY: 'true', VEIL_ALLOW_EPHEMERAL_AUDIT: '1' },
        overrides: { auth: { mode: 'jwt', jwt: { secret: 'j'.repeat(32), issuer: 'i', audience: 'a' } } },
      }),
    );
    expect(bare(jwt)).toEqual(['proxy.pass_through_api_key: cannot be used with auth.mode jwt (its Authorization header is Veil\'s own credential)']);
  });
});
