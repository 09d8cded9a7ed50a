// Environment overrides for the configuration (decisions.md section 10): `VEIL_<SECTION>__<KEY>`
// (double underscore nests; the path is lowercased) and the flat aliases named in interface.md.
// Every `VEIL_*` variable must be known: a misspelt variable aborts startup instead of being
// silently ignored. Problems name the variable, never its value (it may be a secret).
import { parseDocument } from 'yaml';
import { CONFIG_SCHEMA } from './schema.js';

/** One override to apply: a key path and its parsed value, with the variable it came from. */
export interface EnvOverride {
  readonly variable: string;
  readonly path: readonly string[];
  readonly value: unknown;
}

export interface EnvResult {
  /** Nested `VEIL_A__B` overrides first, then the flat aliases, so an alias wins. */
  readonly overrides: EnvOverride[];
  readonly problems: string[];
  readonly warnings: string[];
  /** True when VEIL_SESSION_SECRET was given (it replaces any configured key ring). */
  readonly sessionSecretFromEnv: boolean;
}

type AliasParse = 'string' | 'yaml' | 'list' | 'flag';

/** The flat names of interface.md and decisions.md section 10, and the key each one sets. */
export const ENV_ALIASES: Readonly<Record<string, { readonly path: readonly string[]; readonly parse: AliasParse }>> = {
  VEIL_SESSION_SECRET: { path: ['session', 'secret'], parse: 'string' },
  VEIL_DIGEST_SECRET: { path: ['storage', 'digest_secret'], parse: 'string' },
  VEIL_CORPUS_SECRET: { path: ['rag', 'corpus_secret'], parse: 'string' },
  VEIL_HOST: { path: ['server', 'host'], parse: 'string' },
  VEIL_PORT: { path: ['server', 'port'], parse: 'yaml' },
  VEIL_MAX_BATCH_SIZE: { path: ['limits', 'max_batch_size'], parse: 'yaml' },
  VEIL_CORS_ORIGINS: { path: ['server', 'allowed_origins'], parse: 'list' },
  VEIL_ALLOW_EPHEMERAL_AUDIT: { path: ['audit', 'allow_ephemeral'], parse: 'flag' },
  VEIL_LOG_FORMAT: { path: ['log', 'format'], parse: 'string' },
  VEIL_LOG_LEVEL: { path: ['log', 'level'], parse: 'string' },
  VEIL_DETECTOR_TIMEOUT_SECS: { path: ['detector', 'timeout_secs'], parse: 'yaml' },
  VEIL_OTEL_TRACES_ENDPOINT: { path: ['otel', 'traces_endpoint'], parse: 'string' },
  VEIL_OTEL_SERVICE_NAME: { path: ['otel', 'service_name'], parse: 'string' },
};

/** Known but not a key: the config file path, read by the caller (`veil serve`). */
export const ENV_CONFIG_FILE = 'VEIL_CONFIG';

/**
 * Kubernetes injects "service link" variables for every Service in the namespace: a Service
 * named `veil` or `veil-server` yields VEIL_SERVICE_HOST, VEIL_PORT=tcp://10.0.0.1:3000,
 * VEIL_SERVER_PORT_3000_TCP_ADDR and so on. They are not configuration; treating them as
 * unknown variables would stop every pod from starting. They are recognized by their exact
 * shapes (never containing the `__` of a nested key) and skipped with a warning. The chart
 * should still set `enableServiceLinks: false`.
 */
const SERVICE_LINK_NAME = /^VEIL(?:_[A-Z0-9_]+)?_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9_]+)?|PORT_[0-9]+_(?:TCP|UDP|SCTP)(?:_(?:PROTO|PORT|ADDR))?)$/;
const SERVICE_LINK_PORT_NAME = /^VEIL(?:_[A-Z0-9_]+)?_PORT$/;
const SERVICE_LINK_URL = /^(?:tcp|udp|sctp):\/\/[^\s/]+:[0-9]+$/;

function isServiceLink(variable: string, value: string | undefined): boolean {
  if (variable.includes('__')) return false;
  if (SERVICE_LINK_NAME.test(variable)) return true;
  return SERVICE_LINK_PORT_NAME.test(variable) && value !== undefined && SERVICE_LINK_URL.test(value);
}

/**
 * Variables of the repository's own scripts (scripts/node.sh, scripts/k8s-testenv.sh,
 * scripts/images.sh, the benchmarks, the test suites, the NER sidecar's settings) share the
 * VEIL_ prefix: `.ci/run` exports VEIL_NODE_MAJOR, and a shell that ran `make test` may hold
 * VEIL_E2E_KUBECONFIG. They are not configuration: a name of these families that is no config
 * key (they never contain the `__` of a nested key) is skipped with a warning, not refused.
 */
const TOOL_VARIABLE = /^VEIL_(?:NODE|NPM|K8S|KWOK|IMAGES|BENCH|E2E|NER|TOOL|UPDATE)_[A-Z0-9_]+$|^VEIL_(?:BIN|HELM|KUBECTL)$/;

/** Path segments that must never be used as object keys (prototype pollution). */
const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

type SchemaNode = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The schema node a key path leads to, or undefined for an unknown key. Maps with free keys
 * (tenants, restore_templates.partial_formats, ...) accept any key at that level.
 */
export function schemaAt(path: readonly string[]): SchemaNode | undefined {
  let node: SchemaNode = CONFIG_SCHEMA;
  for (const segment of path) {
    if (segment === '' || FORBIDDEN_SEGMENTS.has(segment)) return undefined;
    const properties = node.properties;
    const named = isRecord(properties) && Object.hasOwn(properties, segment) ? properties[segment] : undefined;
    const free = node.additionalProperties;
    const next = named ?? (isRecord(free) ? free : undefined);
    if (!isRecord(next)) return undefined;
    node = next;
  }
  return node;
}

/** Parse a value as YAML without logging (yaml's parse() would print warnings). */
export function parseYamlValue(text: string): { ok: true; value: unknown } | { ok: false } {
  const document = parseDocument(text, { prettyErrors: false });
  if (document.errors.length > 0) return { ok: false };
  return { ok: true, value: document.toJS({ maxAliasCount: 100 }) };
}

function parseValue(variable: string, raw: string, parse: AliasParse, problems: string[]): { ok: true; value: unknown } | { ok: false } {
  switch (parse) {
    case 'string':
      return { ok: true, value: raw };
    case 'list':
      return {
        ok: true,
        value: raw
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      };
    case 'flag': {
      const lowered = raw.trim().toLowerCase();
      if (lowered === '1' || lowered === 'true') return { ok: true, value: true };
      if (lowered === '0' || lowered === 'false') return { ok: true, value: false };
      problems.push(`${variable}: must be 1, true, 0 or false`);
      return { ok: false };
    }
    case 'yaml': {
      const parsed = parseYamlValue(raw);
      if (!parsed.ok) problems.push(`${variable}: not a valid YAML value`);
      return parsed;
    }
  }
}

/**
 * Read every `VEIL_*` variable. Empty values are treated as unset (container tooling often
 * passes empty variables), but an unknown name is an error whatever its value.
 *
 * Values of nested variables are parsed as YAML (so lists and maps can be given), except where
 * the key is a plain string in the schema: those are taken verbatim, so a hex secret made only
 * of digits, a host like `::1` or a value with a `#` is never reinterpreted by YAML.
 */
export function readEnv(env: Readonly<Record<string, string | undefined>>): EnvResult {
  const problems: string[] = [];
  const warnings: string[] = [];
  const serviceLinks: string[] = [];
  const toolVariables: string[] = [];
  const nested: EnvOverride[] = [];
  const aliased: EnvOverride[] = [];
  let sessionSecretFromEnv = false;

  for (const variable of Object.keys(env).sort()) {
    if (!variable.startsWith('VEIL_')) continue;
    const raw = env[variable];
    if (variable === ENV_CONFIG_FILE) continue;
    if (isServiceLink(variable, raw)) {
      serviceLinks.push(variable);
      continue;
    }

    const alias = Object.hasOwn(ENV_ALIASES, variable) ? ENV_ALIASES[variable] : undefined;
    if (alias !== undefined) {
      if (raw === undefined || raw === '') continue;
      const parsed = parseValue(variable, raw, alias.parse, problems);
      if (parsed.ok) aliased.push({ variable, path: alias.path, value: parsed.value });
      if (variable === 'VEIL_SESSION_SECRET') sessionSecretFromEnv = true;
      continue;
    }

    const path = variable.slice('VEIL_'.length).toLowerCase().split('__');
    const node = schemaAt(path);
    if (node === undefined && !variable.includes('__') && TOOL_VARIABLE.test(variable)) {
      toolVariables.push(variable);
      continue;
    }
    if (node === undefined) {
      problems.push(`${variable}: unknown configuration variable (no key ${path.join('.')})`);
      continue;
    }
    if (raw === undefined || raw === '') continue;
    const parsed = parseValue(variable, raw, node.type === 'string' ? 'string' : 'yaml', problems);
    if (parsed.ok) nested.push({ variable, path, value: parsed.value });
  }
  if (serviceLinks.length > 0) {
    warnings.push(
      `environment: ignored ${serviceLinks.length} Kubernetes service-link variable(s) (${serviceLinks.join(', ')}); ` +
        'set enableServiceLinks: false on the pod to silence this',
    );
  }
  if (toolVariables.length > 0) {
    warnings.push(`environment: ignored ${toolVariables.join(', ')} (variables of Veil's build and test scripts, not configuration)`);
  }
  return { overrides: [...nested, ...aliased], problems, warnings, sessionSecretFromEnv };
}
