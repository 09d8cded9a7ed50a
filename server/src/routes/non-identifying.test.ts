// Values that identify no one over HTTP (inject; docs/detection.md "Values that identify no one"):
// loopback, private and documentation addresses and public documentation URLs pass a transform
// untouched and are not reported by /v1/detect, while public addresses and URLs with a personal
// or secret part are still tokenized; a policy can protect every address and URL, and a deny
// rule on URLs still refuses a documentation link.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const PUBLIC = [
  'http://127.0.0.1:8000/docs',
  '0.0.0.0',
  '192.168.1.10',
  '2001:db8::1',
  'https://docs.python.org/3/library/asyncio.html',
  'https://github.com/fastify/fastify/pull/862',
];
const PERSONAL = ['81.2.69.160', 'https://example.com/users/4711', 'https://example.com/reset?token=Zm9vYmFyYmF6cXV4', 'https://jdoe.github.io/cv'];
const TEXT = `Bind ${PUBLIC[0]} or ${PUBLIC[1]}; the router is ${PUBLIC[2]}, see ${PUBLIC[3]} and ${PUBLIC[4]} (${PUBLIC[5]}).
My server is ${PERSONAL[0]}, my page ${PERSONAL[1]}, reset link ${PERSONAL[2]} and blog ${PERSONAL[3]} .`;

function policy(name: string, lines: readonly string[]): [string, string] {
  return [`${name}.yaml`, [`name: ${name}`, 'version: "1.0.0"', 'rules:', ...lines].join('\n')];
}

const TOKENIZE_REST = ['  - name: rest', '    match: {}', '    action: tokenize', '    restore_mode: full'];

describe('values that identify no one', () => {
  let t: TestApp;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-non-identifying-'));
    for (const [file, text] of [
      policy('open', TOKENIZE_REST),
      policy('protect-all', [...TOKENIZE_REST, 'detection:', '  non_identifying: {ip_address: [], url: []}']),
      policy('special-only', [...TOKENIZE_REST, 'detection:', '  non_identifying: {ip_address: [special_purpose]}']),
      policy('no-links', ['  - name: no-links', '    match: {entity_type: url}', '    action: deny', ...TOKENIZE_REST]),
    ]) {
      writeFileSync(join(dir, file), text);
    }
    t = await buildTestApp({ overrides: { policy: { directory: dir, default: 'open' } } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a transform leaves them where they stand and tokenizes the identifying ones', async () => {
    const response = await post(t.app, '/v1/transform', { input: TEXT });
    expect(response.status).toBe(200);
    for (const value of PUBLIC) expect(response.body.safe_text).toContain(value);
    for (const value of PERSONAL) expect(response.body.safe_text).not.toContain(value);
    const types = response.body.entities.map((entity: { type: string }) => entity.type).sort();
    expect(types).toEqual(['ip_address', 'url', 'url', 'url']);
  });

  it('/v1/detect without a policy does not report them', async () => {
    const response = await post(t.app, '/v1/detect', { input: TEXT });
    expect(response.status).toBe(200);
    const values = response.body.entities.map((entity: { value: string }) => entity.value);
    expect(values.sort()).toEqual([...PERSONAL].sort());
  });

  it('/v1/detect on a worker thread (a text above the offload threshold) leaves them out too', async () => {
    const input = `${TEXT}\n${'lorem ipsum '.repeat(8_000)}`;
    const response = await post(t.app, '/v1/detect', { input });
    expect(response.status).toBe(200);
    const values = response.body.entities.map((entity: { value: string }) => entity.value);
    expect(values.sort()).toEqual([...PERSONAL].sort());
  });

  it('a policy with empty classes protects every address and URL', async () => {
    const response = await post(t.app, '/v1/transform', { input: TEXT, policy: 'protect-all' });
    expect(response.status).toBe(200);
    for (const value of [...PUBLIC, ...PERSONAL]) expect(response.body.safe_text).not.toContain(value);
  });

  it('releasing only special-purpose addresses protects private ones and URLs on them', async () => {
    const response = await post(t.app, '/v1/transform', { input: 'router 192.168.1.10, admin http://10.0.0.5:8080/ and loopback 127.0.0.1', policy: 'special-only' });
    expect(response.status).toBe(200);
    expect(response.body.safe_text).not.toContain('192.168.1.10');
    expect(response.body.safe_text).not.toContain('http://10.0.0.5:8080/');
    expect(response.body.safe_text).toContain('127.0.0.1');
  });

  it('a deny rule on URLs still refuses a documentation link', async () => {
    const response = await post(t.app, '/v1/transform', { input: 'see https://docs.python.org/3/', policy: 'no-links' });
    expect(response.status).toBe(403);
  });
});
