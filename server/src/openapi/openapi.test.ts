// The OpenAPI document: the committed docs/openapi.json is what the server generates (drift test;
// `make openapi` rewrites it), every registered route is in it with its scope, the error
// responses are the spec's envelope with the codes per status, non-JSON bodies are described,
// and real responses validate against it. /openapi.json and /openapi.html need a credential
// outside dev mode; the page loads nothing from elsewhere.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeScopes } from '../plugins/auth.js';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, send, type TestApp } from '../../test/support/harness.js';

const COMMITTED = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

type Json = Record<string, any>;

describe('OpenAPI document', () => {
  let harness: TestApp;
  let text: string;
  let document: Json;
  beforeAll(async () => {
    harness = await buildTestApp();
    const response = await harness.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/json');
    text = response.body;
    document = JSON.parse(text) as Json;
  });
  afterAll(async () => {
    await harness.close();
  });

  it('is the committed docs/openapi.json (VEIL_UPDATE_OPENAPI=1 rewrites it: make openapi)', () => {
    if (process.env.VEIL_UPDATE_OPENAPI === '1') writeFileSync(COMMITTED, text);
    expect(readFileSync(COMMITTED, 'utf8')).toBe(text);
  });

  it('is OpenAPI 3.1 with the two security schemes', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it('has every registered route with its scope; public routes need no credential', () => {
    const routes = routeScopes(harness.app).filter((route) => route.method !== 'HEAD' && route.method !== 'OPTIONS');
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      const operation = document.paths[route.url]?.[route.method.toLowerCase()] as Json | undefined;
      expect(operation, `${route.method} ${route.url}`).toBeDefined();
      expect(operation?.['x-veil-scope']).toEqual(route.scope);
      if (route.scope === 'public') expect(operation?.security).toEqual([]);
      else expect(operation?.security).toBeUndefined();
    }
  });

  it('gives every operation the error envelope (OpenAI-shaped under /openai/), with each code under its own status', () => {
    for (const [path, methods] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const responses = operation.responses as Record<string, Json>;
        expect(responses['500'], `${method} ${path}`).toBeDefined();
        for (const [status, response] of Object.entries(responses)) {
          // /readyz answers 503 {status: not_ready}, its documented probe body, not an error.
          if (Number(status) < 400 || (path === '/readyz' && status === '503')) continue;
          const schema = response.content['application/json'].schema as Json;
          const envelope = path.startsWith('/openai/') ? 'OpenAiErrorEnvelope' : 'ErrorEnvelope';
          expect(schema.allOf[0]).toEqual({ $ref: `#/components/schemas/${envelope}` });
          expect(schema.allOf[1].properties.code.enum.length).toBeGreaterThan(0);
        }
      }
    }
    const transform = document.paths['/v1/transform'].post as Json;
    expect(transform.responses['409'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual([
      'VEIL_IDEMPOTENCY_IN_PROGRESS',
      'VEIL_IDEMPOTENCY_KEY_REUSE',
      'VEIL_IDEMPOTENCY_RESULT_UNAVAILABLE',
      'VEIL_SESSION_REPLAY',
    ]);
    expect(transform.parameters[0].name).toBe('Idempotency-Key');
    // The proxy relays an upstream 4xx with its own status: documented as the 4XX range.
    const chat = document.paths['/openai/v1/chat/completions'].post as Json;
    expect(chat['x-veil-scope']).toEqual(['transform', 'rehydrate']);
    expect(chat.responses['4XX'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['VEIL_UPSTREAM_FAILED']);
    expect(chat.responses['504'].content['application/json'].schema.allOf[1].properties.code.enum).toContain('VEIL_UPSTREAM_FAILED');
    expect(Object.keys(chat.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
  });

  it('describes multipart uploads, server-sent events, ndjson and binary answers', () => {
    expect(document.paths['/v1/transform/file'].post.requestBody.content['multipart/form-data'].schema.required).toEqual(['file']);
    expect(document.paths['/v1/transform/image'].post.requestBody.content['multipart/form-data'].schema.required).toEqual(['image']);
    expect(Object.keys(document.paths['/v1/rehydrate/stream'].post.requestBody.content)).toEqual(['application/json', 'application/x-ndjson']);
    expect(Object.keys(document.paths['/v1/transform/stream'].post.responses['200'].content)).toEqual(['text/event-stream']);
    expect(Object.keys(document.paths['/v1/redact/image'].post.responses['200'].content)).toEqual(['image/png']);
    expect(Object.keys(document.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain']);
  });

  it('validates real responses: a success and an error envelope', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');
    const check = (path: string, status: number, body: unknown): void => {
      const schema = JSON.parse(JSON.stringify(document.paths[path].post.responses[String(status)].content['application/json'].schema).replaceAll('"#/components', '"doc#/components')) as Json;
      const validate = ajv.compile(schema);
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    };
    const ok = await send(harness.app, { method: 'POST', url: '/v1/transform', body: { input: 'mail jane@example.com' } });
    expect(ok.status).toBe(200);
    check('/v1/transform', 200, ok.body);
    const bad = await send(harness.app, { method: 'POST', url: '/v1/transform', body: { input: 1 } });
    expect(bad.status).toBe(400);
    check('/v1/transform', 400, bad.body);
    // The proxy without proxy.upstream_url: 404 in OpenAI's error shape.
    const proxy = await send(harness.app, { method: 'POST', url: '/openai/v1/chat/completions', body: { model: 'm', messages: [] } });
    expect(proxy.status).toBe(404);
    expect(proxy.body.error.type).toBe('not_found_error');
    check('/openai/v1/chat/completions', 404, proxy.body);
  });
});

describe('/openapi.json and /openapi.html access', () => {
  let harness: TestApp;
  beforeAll(async () => {
    harness = await buildTestApp({ overrides: apiKeyOverrides([{ key: 'k'.repeat(32), identity: 'reader', scopes: ['detect'] }]) });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('needs any valid credential outside dev mode', async () => {
    for (const url of ['/openapi.json', '/openapi.html']) {
      expect((await send(harness.app, { method: 'GET', url })).status).toBe(401);
      expect((await send(harness.app, { method: 'GET', url, headers: { 'x-api-key': 'k'.repeat(32) } })).status).toBe(200);
    }
  });

  it('serves a self-contained reference page under a strict CSP', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/openapi.html', headers: { 'x-api-key': 'k'.repeat(32) } });
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(response.body).toContain('/v1/transform');
    expect(response.body).not.toMatch(/<script|<link|https?:\/\/(?!www\.w3\.org)/i);
  });
});
