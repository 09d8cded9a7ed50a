// The OpenAPI 3.1 document, generated from the routes as registered: every route's method, path,
// scope (config.scope), Idempotency-Key support (config.idempotent) and TypeBox schemas (body,
// response) come from Fastify's onRoute hook; openapi/operations.ts adds what a schema cannot
// say (summaries, non-JSON bodies, route-specific error codes). Error responses are the spec's
// envelope {code, error, request_id} with, per status, the codes that route can return: the
// generic ones follow from the route (credentials, rate limit, JSON body, idempotency, strict
// audit, internal) and the table adds the rest. OpenAPI 3.1 uses JSON Schema 2020-12, so the
// TypeBox schemas go in as they are (JSON.stringify drops TypeBox's symbol keys).
import { ERROR_CODES, type ErrorCode } from '@veil/common';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import type { RouteScope } from '../plugins/auth.js';
import { OPENAI_PREFIX } from '../plugins/errors.js';
import { OPERATIONS, type MediaDoc, type OperationDoc } from './operations.js';

/** One route as registered (HEAD twins and the CORS preflight are left out). */
export interface CollectedRoute {
  readonly method: string;
  readonly url: string;
  readonly schema: FastifySchema | undefined;
  readonly scope: RouteScope;
  readonly idempotent: boolean;
}

/**
 * Record every route registered from now on (in this context and its children). Call before the
 * routes are registered; the returned list fills as they are.
 */
export function collectRoutes(app: FastifyInstance): readonly CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      const scope = route.config?.scope;
      if (scope === undefined) continue; // refused at startup by plugins/auth.ts
      routes.push({ method, url: route.url, schema: route.schema, scope, idempotent: route.config?.idempotent === true });
    }
  });
  return routes;
}

type Json = Record<string, unknown>;

/** A schema as plain JSON (TypeBox's symbol-keyed metadata dropped). */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

function mediaContent(media: Readonly<Record<string, MediaDoc>>): Json {
  return Object.fromEntries(
    Object.entries(media).map(([type, doc]) => [type, { schema: plain(doc.schema), ...(doc.description !== undefined ? { description: doc.description } : {}) }]),
  );
}

/** Generic error codes of a route, from how it is declared. */
function genericErrors(route: CollectedRoute, hasBody: boolean): ErrorCode[] {
  const codes: ErrorCode[] = ['VEIL_INTERNAL'];
  if (route.scope !== 'public') {
    codes.push('VEIL_AUTH_REQUIRED', 'VEIL_AUTH_INVALID', 'VEIL_AUTH_UNAVAILABLE', 'VEIL_RATE_LIMITED', 'VEIL_AUDIT_UNAVAILABLE');
    if (route.scope !== 'authenticated') codes.push('VEIL_SCOPE_DENIED');
  }
  if (hasBody) codes.push('VEIL_VALIDATION_FAILED', 'VEIL_PAYLOAD_TOO_LARGE', 'VEIL_UNSUPPORTED_MEDIA_TYPE');
  if (route.idempotent) {
    codes.push(
      'VEIL_IDEMPOTENCY_KEY_INVALID',
      'VEIL_IDEMPOTENCY_KEY_REUSE',
      'VEIL_IDEMPOTENCY_IN_PROGRESS',
      'VEIL_IDEMPOTENCY_RESULT_UNAVAILABLE',
      'VEIL_IDEMPOTENCY_STORE_FULL',
      // The tenant's share of the idempotency store is used up.
      'VEIL_QUOTA_EXCEEDED',
    );
  }
  return codes;
}

/**
 * Statuses a code can be sent with (decisions.md: detection failures are 502, or 504 on a sidecar
 * timeout; the proxy's upstream failures are 502, 504 on a timeout, or the upstream's own 4xx).
 * Every status is three characters, so they sort as strings ('4XX' after the 4xx it covers).
 */
function statusesOf(code: ErrorCode): string[] {
  if (code === 'VEIL_DETECTION_FAILED') return ['502', '504'];
  if (code === 'VEIL_UPSTREAM_FAILED') return ['4XX', '502', '504'];
  return [String(ERROR_CODES[code].status)];
}

/** The error responses of a route; under /openai/ they take OpenAI's shape (plugins/errors.ts). */
function errorResponses(codes: readonly ErrorCode[], envelope: 'ErrorEnvelope' | 'OpenAiErrorEnvelope'): Record<string, Json> {
  const byStatus = new Map<string, Set<ErrorCode>>();
  for (const code of codes) {
    for (const status of statusesOf(code)) {
      const set = byStatus.get(status) ?? new Set<ErrorCode>();
      set.add(code);
      byStatus.set(status, set);
    }
  }
  const responses: Record<string, Json> = {};
  for (const status of [...byStatus.keys()].sort()) {
    const statusCodes = [...byStatus.get(status)!].sort();
    responses[status] = {
      description: statusCodes.join(', '),
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: `#/components/schemas/${envelope}` }, { type: 'object', properties: { code: { enum: statusCodes } } }],
          },
        },
      },
    };
  }
  return responses;
}

/** The JSON request body schema of a route: `body` as a schema, or `body.content['application/json'].schema`. */
function jsonBodySchema(schema: FastifySchema | undefined): unknown {
  const body = (schema as { body?: unknown } | undefined)?.body;
  if (body === undefined) return undefined;
  const content = (body as { content?: Record<string, { schema?: unknown }> }).content;
  return content !== undefined ? content['application/json']?.schema : body;
}

function scopeDescription(scope: RouteScope): string {
  if (scope === 'public') return 'No credentials.';
  if (scope === 'authenticated') return 'Any valid credential.';
  if (typeof scope !== 'string') return `Requires the ${scope.map((name) => `\`${name}\``).join(' and ')} scopes (\`admin\` implies every scope).`;
  return `Requires the \`${scope}\` scope (\`admin\` implies every scope).`;
}

function operationOf(route: CollectedRoute, doc: OperationDoc): Json {
  const bodySchema = jsonBodySchema(route.schema);
  const requestContent: Json = {
    ...(bodySchema !== undefined ? { 'application/json': { schema: plain(bodySchema) } } : {}),
    ...(doc.requestBody !== undefined ? mediaContent(doc.requestBody) : {}),
  };
  const hasBody = Object.keys(requestContent).length > 0;
  const declared = (route.schema as { response?: Record<string, unknown> } | undefined)?.response?.['200'];
  const success: Json =
    doc.response !== undefined
      ? { description: 'OK', content: mediaContent(doc.response) }
      : declared !== undefined
        ? { description: 'OK', content: { 'application/json': { schema: plain(declared) } } }
        : { description: 'OK' };
  const codes = [...genericErrors(route, hasBody), ...(doc.errors ?? [])];
  const parameters: Json[] = route.idempotent
    ? [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Retry safely: a 2xx response is stored and replayed (with Idempotency-Replayed: true) for the same key, method, path and body.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
      ]
    : [];
  return {
    operationId: `${route.method.toLowerCase()}${route.url.replace(/[^A-Za-z0-9]+(.)?/g, (_match, next?: string) => (next ?? '').toUpperCase())}`,
    summary: doc.summary,
    tags: [doc.tag],
    'x-veil-scope': route.scope,
    description: scopeDescription(route.scope),
    ...(route.scope === 'public' ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(hasBody ? { requestBody: { required: doc.requestBodyRequired ?? true, content: requestContent } } : {}),
    responses: {
      200: success,
      ...Object.fromEntries(Object.entries(doc.otherResponses ?? {}).map(([status, other]) => [status, { description: other.description, content: mediaContent(other.content) }])),
      ...errorResponses(codes, route.url.startsWith(OPENAI_PREFIX) ? 'OpenAiErrorEnvelope' : 'ErrorEnvelope'),
    },
  };
}

/** The whole document; throws when a registered route has no entry in OPERATIONS. */
export function buildOpenApiDocument(routes: readonly CollectedRoute[], version: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const missing: string[] = [];
  for (const route of [...routes].sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))) {
    const doc = OPERATIONS[`${route.method} ${route.url}`];
    if (doc === undefined) {
      missing.push(`${route.method} ${route.url}`);
      continue;
    }
    (paths[route.url] ??= {})[route.method.toLowerCase()] = operationOf(route, doc);
  }
  if (missing.length > 0) throw new Error(`routes without an OpenAPI entry (server/src/openapi/operations.ts): ${missing.join(', ')}`);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Veil API',
      version,
      description:
        'Data-protection tokenization for LLM applications: detect and tokenize sensitive values before a model sees them, restore them afterwards under a policy. Errors are `{code, error, request_id}`; messages name fields, never values. In `auth.mode: dev` no credentials are needed; otherwise send `X-API-Key` (api_key) or `Authorization: Bearer` (jwt, oidc).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: [...new Set(Object.values(OPERATIONS).map((doc) => doc.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'auth.mode api_key: a configured key; its scopes decide the routes.' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'auth.mode jwt (HS256/384/512) or oidc (asymmetric, JWKS); scopes from the token.' },
      },
      schemas: {
        ErrorEnvelope: {
          type: 'object',
          required: ['code', 'error', 'request_id'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
            error: { type: 'string', description: 'Human-readable; names the field, never its value.' },
            request_id: { type: 'string', format: 'uuid' },
          },
        },
        OpenAiErrorEnvelope: {
          type: 'object',
          description: 'Errors of the OpenAI-compatible proxy (/openai/): OpenAI’s shape, so its SDKs raise APIError with the message, plus Veil’s code and request id.',
          required: ['code', 'error', 'request_id'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
            error: {
              type: 'object',
              required: ['message', 'type', 'code', 'param'],
              properties: {
                message: { type: 'string', description: 'Human-readable; names the field, never its value.' },
                type: { type: 'string', enum: ['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'rate_limit_error', 'api_error'] },
                code: { type: 'string', enum: Object.keys(ERROR_CODES) },
                param: { type: 'null' },
              },
            },
            request_id: { type: 'string', format: 'uuid' },
          },
        },
      },
    },
  };
}
