// NerClient against a local stub HTTP server: the shared contract fixtures (ner/contract/cases,
// also checked by the sidecar's pytest suite against the real process), plus timeouts, 5xx,
// malformed JSON, wrong shapes and network failures. Every error must be VEIL_DETECTION_FAILED
// and must never carry the text.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VeilError } from '@veil/common';
import { NerClient, NerError, codePointLength, type NerClientOptions, type NerFailureReason } from './ner.js';

const CONTRACT_DIR = new URL('../../../ner/contract/', import.meta.url);
const CONTRACT_ENV = JSON.parse(readFileSync(new URL('env.json', CONTRACT_DIR), 'utf8')) as Record<string, string>;
const API_KEY = CONTRACT_ENV.VEIL_NER_API_KEY!;

interface ContractCase {
  name: string;
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown; raw_body?: string };
  response: { status: number; body: unknown; match?: 'exact' | 'subset' };
  client?: boolean;
}

const CASES: [string, ContractCase][] = readdirSync(new URL('cases/', CONTRACT_DIR))
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => [file, JSON.parse(readFileSync(new URL(`cases/${file}`, CONTRACT_DIR), 'utf8')) as ContractCase]);

interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

let server: Server;
let baseUrl: string;
let handler: Handler;
let recorded: Recorded[] = [];

function reply(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      recorded.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
      handler(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  recorded = [];
  handler = reply(500, { error: 'no handler' });
});

function client(options: Partial<NerClientOptions> = {}): NerClient {
  return new NerClient({ baseUrl, apiKey: API_KEY, timeoutMs: 2000, ...options });
}

async function failure(promise: Promise<unknown>): Promise<VeilError> {
  try {
    await promise;
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(VeilError);
    return error as VeilError;
  }
  throw new Error('expected a rejection');
}

/** Assert the error is the generic detection failure and holds nothing of the text. */
function expectDetectionFailed(error: VeilError, status: number, secretText: string): void {
  expect(error.code).toBe('VEIL_DETECTION_FAILED');
  expect(error.status).toBe(status);
  expect(error.message).toBe('detection failed');
  const everything = `${error.message} ${error.detail ?? ''} ${error.stack ?? ''} ${JSON.stringify(error)}`;
  for (const word of secretText.split(/\s+/).filter((part) => part.length > 3)) expect(everything).not.toContain(word);
}

function subset(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'object' && expected !== null && !Array.isArray(expected)) {
    if (typeof actual !== 'object' || actual === null) return false;
    return Object.entries(expected).every(([key, value]) => subset(value, (actual as Record<string, unknown>)[key]));
  }
  return JSON.stringify(expected) === JSON.stringify(actual);
}

describe('contract fixtures (ner/contract/cases)', () => {
  const usable = CASES.filter(([, contract]) => contract.client !== false && contract.request.path !== '/livez');

  it('has fixtures to replay', () => {
    expect(usable.length).toBeGreaterThanOrEqual(12);
  });

  it.each(usable)('%s', async (_file, contract) => {
    handler = reply(contract.response.status, contract.response.body);
    const sentKey = contract.request.headers['X-Detector-API-Key'];
    const nerClient = client({ apiKey: sentKey?.replace('{{API_KEY}}', API_KEY) });
    const { path } = contract.request;
    const body = contract.request.body as Record<string, unknown> | undefined;
    const ok = contract.response.status >= 200 && contract.response.status < 300;
    const answer = contract.response.body as Record<string, unknown>;

    let outcome: Promise<unknown>;
    if (path === '/v1/detect') {
      const options: { language?: string; labels?: string[] } = {};
      if (typeof body?.language === 'string') options.language = body.language;
      if (Array.isArray(body?.labels)) options.labels = body.labels as string[];
      outcome = nerClient.detect(body?.text as string, options);
    } else if (path === '/v1/detect/batch') {
      outcome = nerClient.detectBatch(body?.items as { text: string }[]);
    } else if (path === '/readyz') {
      outcome = nerClient.ready();
    } else if (path === '/health') {
      outcome = nerClient.health();
    } else {
      throw new Error(`no client call for ${path}`);
    }

    if (path === '/readyz') {
      expect(await outcome).toBe(ok && answer.status === 'ready');
    } else if (ok) {
      const result = await outcome;
      if (path === '/v1/detect') {
        expect(result).toEqual({ entities: answer.entities, degraded: answer.degraded, warnings: answer.warnings ?? [] });
      } else if (path === '/v1/detect/batch') {
        expect(result).toEqual(answer.results);
      } else {
        expect(contract.response.match === 'subset' ? subset(answer, result) : result).toEqual(
          contract.response.match === 'subset' ? true : answer,
        );
      }
    } else {
      expectDetectionFailed(await failure(outcome), 502, typeof body?.text === 'string' ? body.text : '');
    }

    // The client sent exactly the fixture's request.
    expect(recorded).toHaveLength(1);
    const [sent] = recorded;
    expect(sent!.method).toBe(contract.request.method);
    expect(sent!.path).toBe(path);
    expect(sent!.headers['x-detector-api-key']).toBe(sentKey?.replace('{{API_KEY}}', API_KEY));
    if (body !== undefined) {
      expect(JSON.parse(sent!.body)).toEqual(body);
      expect(sent!.headers['content-type']).toBe('application/json');
    }
  });
});

describe('NerClient failures', () => {
  const text = 'Confidential memo for Zebulon Quartermaine at Canaryworks';

  it('maps a timeout to 504 without the text', async () => {
    handler = () => undefined; // never answers
    const error = await failure(client({ timeoutMs: 20 }).detect(text));
    expectDetectionFailed(error, 504, text);
    expect(error.detail).toBe('ner timeout');
  });

  it('times out while the body is still streaming', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"entities": [');
    };
    const error = await failure(client({ timeoutMs: 20 }).detect(text));
    expectDetectionFailed(error, 504, text);
  });

  it.each([500, 502, 503, 401, 413, 400])('maps status %i to 502', async (status) => {
    handler = reply(status, { error: `sidecar said: ${text}` });
    const error = await failure(client().detect(text));
    expectDetectionFailed(error, 502, text);
    expect(error.detail).toMatch(/^ner /);
  });

  it('rejects malformed JSON', async () => {
    handler = reply(200, '{"entities": [');
    const error = await failure(client().detect(text));
    expectDetectionFailed(error, 502, text);
    expect(error.detail).toBe('ner malformed response: invalid JSON');
  });

  it('rejects a body that is not UTF-8', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(Buffer.from([0x7b, 0xff, 0x7d]));
    };
    expect((await failure(client().detect(text))).detail).toBe('ner malformed response: body is not UTF-8');
  });

  it('rejects an oversized body', async () => {
    handler = reply(200, { entities: [], degraded: false, padding: 'x'.repeat(2000) });
    const error = await failure(client({ maxResponseBytes: 1000 }).detect(text));
    expect(error.detail).toBe('ner malformed response: body too large');
  });

  it('does not follow redirects', async () => {
    handler = (_request, response) => {
      response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      response.end();
    };
    expectDetectionFailed(await failure(client().detect(text)), 502, text);
  });

  it('reports an unreachable sidecar by error code only', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(client({ baseUrl: `http://127.0.0.1:${port}` }).detect(text));
    expectDetectionFailed(error, 502, text);
    expect(error.detail).toBe('ner unreachable (ECONNREFUSED)');
  });

  const emojiText = '😀 Bob'; // 5 code points, 6 UTF-16 units
  const entity = { type: 'person', start: 2, end: 5, confidence: 0.85, label: 'PERSON' };
  it.each<[string, unknown, string]>([
    ['body not an object', [], 'body is not an object'],
    ['entities missing', { degraded: false }, 'entities is not an array'],
    ['entity not an object', { entities: [1], degraded: false }, 'entities[0] is not an object'],
    ['unknown type', { entities: [{ ...entity, type: 'email' }], degraded: false }, 'entities[0].type is not a known type'],
    ['float start', { entities: [{ ...entity, start: 1.5 }], degraded: false }, 'entities[0].start is not a non-negative integer'],
    ['negative start', { entities: [{ ...entity, start: -1 }], degraded: false }, 'entities[0].start is not a non-negative integer'],
    ['end in UTF-16 units', { entities: [{ ...entity, start: 3, end: 6 }], degraded: false }, 'entities[0].end is out of range'],
    ['empty span', { entities: [{ ...entity, end: 2 }], degraded: false }, 'entities[0].end is out of range'],
    ['string end', { entities: [{ ...entity, end: '5' }], degraded: false }, 'entities[0].end is out of range'],
    ['confidence above 1', { entities: [{ ...entity, confidence: 1.5 }], degraded: false }, 'entities[0].confidence is not in [0, 1]'],
    ['label missing', { entities: [{ ...entity, label: undefined }], degraded: false }, 'entities[0].label is not a short string'],
    ['degraded missing', { entities: [] }, 'degraded is not a boolean'],
    ['warnings not strings', { entities: [], degraded: true, warnings: [1] }, 'warnings is not a short array of strings'],
  ])('rejects a wrong shape: %s', async (_name, answer, problem) => {
    handler = reply(200, answer);
    const error = await failure(client().detect(emojiText));
    expectDetectionFailed(error, 502, emojiText);
    expect(error.detail).toBe(`ner malformed response: ${problem}`);
  });

  it('accepts spans that end at the last code point and ignores unknown fields', async () => {
    handler = reply(200, { entities: [entity], degraded: false, extra: 1 });
    expect(await client().detect(emojiText)).toEqual({ entities: [entity], degraded: false, warnings: [] });
  });

  it('checks batch results against their own texts', async () => {
    handler = reply(200, { results: [{ entities: [], degraded: false }] });
    const lengthError = await failure(client().detectBatch([{ text: 'a' }, { text: 'b' }]));
    expect(lengthError.detail).toBe('ner malformed response: results length differs from items length');
    handler = reply(200, { results: [{ entities: [], degraded: false }, { entities: [entity], degraded: false }] });
    const spanError = await failure(client().detectBatch([{ text: emojiText }, { text: 'Bob' }]));
    expect(spanError.detail).toBe('ner malformed response: results[1].entities[0].end is out of range');
  });
});

describe('NerClient probes and wiring', () => {
  it('ready() is false on 503, on a timeout and on garbage, and never throws', async () => {
    handler = reply(503, { status: 'not_ready', backend: 'spacy' });
    expect(await client().ready()).toBe(false);
    handler = () => undefined;
    expect(await client().ready(20)).toBe(false);
    handler = reply(200, 'not json');
    expect(await client().ready()).toBe(false);
    handler = reply(200, { status: 'ready', backend: 'spacy' });
    expect(await client().ready()).toBe(true);
  });

  it('health() fails like any other call on an error status', async () => {
    handler = reply(500, {});
    expectDetectionFailed(await failure(client().health()), 502, '');
  });

  it('omits the key header when no key is configured and uses an injected fetch', async () => {
    const calls: { url: string; init: RequestInit | undefined }[] = [];
    const fakeFetch: typeof fetch = (input, init) => {
      calls.push({ url: input as string, init });
      return Promise.resolve(
        new Response(JSON.stringify({ entities: [], degraded: false }), { headers: { 'content-type': 'application/json' } }),
      );
    };
    const result = await new NerClient({ baseUrl: 'http://sidecar.invalid:8001/', timeoutMs: 100, fetch: fakeFetch }).detect('x', {
      language: 'en',
      labels: ['person'],
    });
    expect(result).toEqual({ entities: [], degraded: false, warnings: [] });
    expect(calls[0]!.url).toBe('http://sidecar.invalid:8001/v1/detect');
    expect(calls[0]!.init?.headers).not.toHaveProperty('X-Detector-API-Key');
    expect(JSON.parse(calls[0]!.init?.body as string)).toEqual({ text: 'x', language: 'en', labels: ['person'] });
  });

  it('validates its options', () => {
    expect(() => new NerClient({ baseUrl: 'not a url', timeoutMs: 10 })).toThrow(TypeError);
    expect(() => new NerClient({ baseUrl: 'file:///tmp/x', timeoutMs: 10 })).toThrow(TypeError);
    expect(() => new NerClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 0 })).toThrow(TypeError);
  });

  it('counts code points like Python str indices', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀 Bob')).toBe(5);
    expect(codePointLength('👩🏽‍💻')).toBe(4);
    expect(codePointLength('\ud800x')).toBe(2); // lone surrogate counts once
    expect(codePointLength('x\udc00')).toBe(2);
  });
});

async function nerFailure(promise: Promise<unknown>): Promise<NerError> {
  const error = await failure(promise);
  if (!(error instanceof NerError)) throw new Error('expected a NerError');
  return error;
}

describe('NerClient failure reasons and availability', () => {
  const text = 'Confidential memo for Zebulon Quartermaine at Canaryworks';

  it.each<[string, () => Handler, number, NerFailureReason, RegExp]>([
    ['a timeout', () => () => undefined, 504, 'timeout', /^the NER sidecar did not answer within 0\.05 s \(timeout\)$/],
    ['a 5xx', () => reply(503, { error: text }), 502, 'error_status', /^the NER sidecar is unavailable \(HTTP 503/],
    ['a 500', () => reply(500, { error: text }), 502, 'error_status', /^the NER sidecar answered with an error \(HTTP 500\)$/],
    ['a wrong key', () => reply(401, { error: text }), 502, 'rejected', /^the NER sidecar rejected the API key \(HTTP 401\)$/],
    ['an invalid answer', () => reply(200, { entities: 'no' }), 502, 'invalid_response', /^the NER sidecar sent an invalid response \(entities is not an array\)$/],
  ])('names %s in its reason and summary, never the text', async (_name, make, status, reason, summary) => {
    handler = make();
    const error = await nerFailure(client({ timeoutMs: 50 }).detect(text));
    expectDetectionFailed(error, status, text);
    expect(error.reason).toBe(reason);
    expect(error.summary).toMatch(summary);
  });

  it('names a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await nerFailure(client({ baseUrl: `http://127.0.0.1:${port}` }).detect(text));
    expect(error.reason).toBe('unreachable');
    expect(error.summary).toBe('the NER sidecar could not be reached (ECONNREFUSED)');
  });

  it('reports availability from the latest detect call, and probes with an empty detect call when that is old', async () => {
    let nowMs = 1_000_000;
    const ner = client({ now: () => nowMs });
    handler = reply(200, { entities: [], degraded: false });
    expect(await ner.availability()).toEqual({ answering: true, atMs: nowMs });
    expect(recorded.map((call) => [call.path, call.body])).toEqual([['/v1/detect', '{"text":""}']]);
    handler = reply(500, { error: 'boom' });
    await failure(ner.detect(text));
    // Recent: the failed call stands, no probe is sent.
    expect(await ner.availability()).toMatchObject({ answering: false, reason: 'error_status', summary: 'the NER sidecar answered with an error (HTTP 500)' });
    expect(recorded).toHaveLength(2);
    handler = reply(200, { entities: [], degraded: false });
    nowMs += 6000;
    expect(await ner.availability()).toMatchObject({ answering: true });
    expect(recorded).toHaveLength(3);
  });

  it('abandons a call when its signal aborts, without counting that against the sidecar', async () => {
    handler = () => undefined; // never answers
    const ner = client({ timeoutMs: 5000 });
    const abandon = new AbortController();
    const pending = nerFailure(ner.detect(text, { signal: abandon.signal }));
    setTimeout(() => abandon.abort(), 10);
    const error = await pending;
    expect(error.reason).toBe('unreachable');
    handler = reply(200, { entities: [], degraded: false });
    expect(await ner.availability()).toMatchObject({ answering: true });
  });

  it('keeps at most maxInFlight calls at the sidecar, and waiting for a slot does not count against the deadline', async () => {
    let inFlight = 0;
    let most = 0;
    handler = (request, response, body) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      const items = (JSON.parse(body) as { items?: unknown[] }).items;
      const answer = items !== undefined ? { results: items.map(() => ({ entities: [], degraded: false })) } : { entities: [], degraded: false };
      setTimeout(() => {
        inFlight -= 1;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer));
      }, 300);
    };
    // Three calls one at a time take about 900 ms in all; each alone is well inside 700 ms.
    const ner = client({ timeoutMs: 700, maxInFlight: 1 });
    const results = await Promise.all([ner.detect('a'), ner.detect('b'), ner.detectBatch([{ text: 'c' }, { text: 'd' }])]);
    expect(results.map((result) => (Array.isArray(result) ? result.length : result.entities.length))).toEqual([0, 0, 2]);
    expect(recorded.map((call) => call.path)).toEqual(['/v1/detect', '/v1/detect', '/v1/detect/batch']);
    expect(most).toBe(1);
    expect(() => client({ maxInFlight: 0 })).toThrow(TypeError);
  });

  it('drops a waiting call whose signal aborts', async () => {
    handler = (_request, response) => {
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"entities":[],"degraded":false}'), 100);
    };
    const ner = client({ maxInFlight: 1 });
    const abandon = new AbortController();
    const first = ner.detect('a');
    const second = nerFailure(ner.detect('b', { signal: abandon.signal }));
    abandon.abort();
    expect((await second).detail).toBe('ner call abandoned');
    await first;
    expect(recorded).toHaveLength(1);
  });
});
