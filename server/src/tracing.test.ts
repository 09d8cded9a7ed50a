// Tracing against a local OTLP/HTTP receiver (node:http on 127.0.0.1 that records every export):
// one span per request with tenant, policy, entity types and counts and the fingerprinted trace
// id, joined to an incoming traceparent; no value anywhere in what is exported; an endpoint that
// does not answer at startup is a warning, not a failure.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppDeps } from './deps.js';
import { createLogger } from './logging.js';
import { buildTestApp, MemorySink, post, type TestApp } from '../test/support/harness.js';
import { loggableEndpoint, startTracing } from './tracing.js';

const CANARY = { email: 'otel.canary.58@example.org', phone: '+1 415 555 0162', trace: 'client-trace-canary-3b7e' };
const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

interface Export {
  readonly url: string;
  readonly contentType: string;
  readonly text: string;
}

let receiver: Server | undefined;
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
  receiver = undefined;
});

async function startReceiver(exports: Export[]): Promise<string> {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      exports.push({ url: request.url ?? '', contentType: String(request.headers['content-type']), text: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
}

function withTracer(tracer: AppDeps['tracer']) {
  return (deps: AppDeps): AppDeps => Object.defineProperties({}, { ...Object.getOwnPropertyDescriptors(deps), tracer: { value: tracer, enumerable: true } }) as AppDeps;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; arrayValue?: { values: OtlpValue[] } };
interface OtlpSpan {
  name: string;
  traceId: string;
  parentSpanId?: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
}

function plain(value: OtlpValue): unknown {
  if (value.arrayValue !== undefined) return value.arrayValue.values.map(plain);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue;
}

function spansOf(exports: Export[]): { resource: Record<string, unknown>; span: OtlpSpan; attributes: Record<string, unknown> }[] {
  const out: { resource: Record<string, unknown>; span: OtlpSpan; attributes: Record<string, unknown> }[] = [];
  for (const exported of exports) {
    const body = JSON.parse(exported.text) as { resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };
    for (const resourceSpans of body.resourceSpans) {
      const resource = Object.fromEntries(resourceSpans.resource.attributes.map((attribute) => [attribute.key, plain(attribute.value)]));
      for (const scope of resourceSpans.scopeSpans) {
        for (const span of scope.spans) out.push({ resource, span, attributes: Object.fromEntries(span.attributes.map((attribute) => [attribute.key, plain(attribute.value)])) });
      }
    }
  }
  return out;
}

describe('tracing', () => {
  it('exports one span per request with names and counts, never values', async () => {
    const exports: Export[] = [];
    const endpoint = await startReceiver(exports);
    const logs = new MemorySink();
    const started = startTracing({ endpoint, serviceName: 'veil-test', version: '0.0.0-test', logger: createLogger({ level: 'info', format: 'json', stream: logs }) });
    await started.probed;
    expect(logs.text()).toContain('tracing enabled');
    t = await buildTestApp({ mutateDeps: withTracer(started.tracer) });

    const transformed = await t.app.inject({
      method: 'POST',
      url: '/v1/transform',
      headers: { 'content-type': 'application/json', traceparent: `00-${PARENT_TRACE}-00f067aa0ba902b7-01` },
      payload: { input: `Mail ${CANARY.email} or call ${CANARY.phone}`, trace_id: CANARY.trace },
    });
    expect(transformed.statusCode).toBe(200);
    const body = transformed.json();
    const restored = await post(t.app, '/v1/rehydrate', { output: `to ${body.entities[0].token}`, session_state: body.session_state, trace_id: CANARY.trace });
    expect(restored.body.restored_text).toContain(CANARY.email);
    expect((await post(t.app, '/v1/rehydrate', { output: 'x', session_state: 'v1.zz.bad' })).status).toBe(410);
    await started.tracer!.close();

    expect(exports.length).toBeGreaterThan(0);
    expect(exports.every((exported) => exported.url === '/v1/traces' && exported.contentType.startsWith('application/json'))).toBe(true);
    const spans = spansOf(exports);
    const transform = spans.find((entry) => entry.attributes['http.route'] === '/v1/transform');
    expect(transform).toBeDefined();
    expect(transform!.resource['service.name']).toBe('veil-test');
    expect(transform!.span.name).toBe('POST /v1/transform');
    expect(transform!.span.kind).toBe(2); // SERVER
    // Joined to the caller's trace.
    expect(transform!.span.traceId).toBe(PARENT_TRACE);
    expect(transform!.span.parentSpanId).toBe('00f067aa0ba902b7');
    const fingerprint = createHash('sha256').update(CANARY.trace).digest('hex').slice(0, 16);
    expect(transform!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'veil.operation': 'transform',
      'veil.policy': 'default',
      'veil.entity_types': ['email', 'phone'],
      'veil.entity_count': 2,
      'veil.entity_count.email': 1,
      'veil.entity_count.phone': 1,
      'veil.trace_id': fingerprint,
    });
    expect(transform!.attributes['veil.tenant']).toBeUndefined(); // dev mode: untenanted
    const rehydrate = spans.find((entry) => entry.attributes['http.route'] === '/v1/rehydrate' && entry.attributes['http.response.status_code'] === 200);
    expect(rehydrate!.attributes).toMatchObject({ 'veil.operation': 'rehydrate', 'veil.trace_id': fingerprint, 'veil.output_guard': false });
    const failed = spans.find((entry) => entry.attributes['veil.error_code'] === 'VEIL_SESSION_EXPIRED');
    expect(failed?.attributes['http.response.status_code']).toBe(410);

    const everything = exports.map((exported) => exported.text).join('\n');
    for (const value of [CANARY.email, CANARY.phone, CANARY.trace, body.session_state as string, body.entities[0].token as string]) {
      expect(everything).not.toContain(value);
    }
    expect(logs.text()).not.toContain(CANARY.email);
  });

  it('warns and keeps serving when the endpoint does not answer at startup', async () => {
    const exports: Export[] = [];
    const endpoint = await startReceiver(exports);
    await new Promise<void>((resolve) => receiver!.close(() => resolve()));
    receiver = undefined;
    const logs = new MemorySink();
    const started = startTracing({
      endpoint: endpoint.replace('http://', 'http://user:secret-token@'),
      serviceName: 'veil-test',
      version: '0.0.0-test',
      logger: createLogger({ level: 'info', format: 'json', stream: logs }),
      probeTimeoutMs: 1000,
    });
    await started.probed;
    const warning = logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((record) => record.event === 'otel_endpoint_unreachable');
    expect(warning).toMatchObject({ level: 40, problem: 'ECONNREFUSED' });
    // The credentials in the URL are not logged.
    expect(logs.text()).not.toContain('secret-token');
    t = await buildTestApp({ mutateDeps: withTracer(started.tracer) });
    expect((await post(t.app, '/v1/transform', { input: `mail ${CANARY.email}` })).status).toBe(200);
    await started.tracer!.close();
  });

  it('logs endpoints without userinfo or query', () => {
    expect(loggableEndpoint('https://u:p@collector.example:4318/v1/traces?token=abc')).toBe('https://collector.example:4318/v1/traces');
    expect(loggableEndpoint('not a url')).toBe('(invalid url)');
  });
});
