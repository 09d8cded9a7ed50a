// Overlap between NER and structured detections, against the real `veil serve` process (issue 15
// item 7): with NER on, a "person" the model sees inside an IPv6 address, a MAC address or a
// Medicare number never leaves the rest of that value raw, and an NER span that reaches past a
// structured value keeps only its own part. The sidecar here is a stub HTTP server speaking the
// sidecar's protocol: the real spaCy model does not make this mistake on demand, and the bug is
// in how Veil merges what any model says, so the stub says it deterministically.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startVeil, type ServerProcess } from './support/server.js';

const IPV6 = 'e4fa:9fa5:72c0:4b9d:b2d4:4f3e:dead:bcaa';
const MAC = '00:1A:2B:3C:4D:5E';
const MEDICARE = '2123 45670 1';
/** What the stub model tags as a person: pieces of structured values, and a name running into one. */
const MISTAKES = ['b2d4:4f3e', '4D:5E', '45670', 'Jane e4fa'];

function codePoints(text: string, index: number): number {
  return [...text.slice(0, index)].length;
}

function entitiesFor(text: string): { type: string; start: number; end: number; confidence: number; label: string }[] {
  const out = [];
  for (const piece of MISTAKES) {
    const at = text.indexOf(piece);
    if (at >= 0) out.push({ type: 'person', start: codePoints(text, at), end: codePoints(text, at + piece.length), confidence: 0.99, label: 'PERSON' });
  }
  return out;
}

function stubSidecar(): Server {
  return createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const send = (body: unknown): void => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method === 'GET') {
        send(request.url === '/readyz' ? { status: 'ready' } : { status: 'ok' });
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text?: string; items?: { text: string }[] };
      if (request.url === '/v1/detect/batch') {
        send({ results: (body.items ?? []).map((item) => ({ entities: entitiesFor(item.text), degraded: false })) });
        return;
      }
      send({ entities: entitiesFor(body.text ?? ''), degraded: false, warnings: [] });
    });
  });
}

describe('NER spans inside structured values (real process, stub sidecar)', () => {
  let sidecar: Server;
  let server: ServerProcess;
  beforeAll(async () => {
    sidecar = stubSidecar();
    await new Promise<void>((resolve) => sidecar.listen(0, '127.0.0.1', resolve));
    const address = sidecar.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    server = await startVeil({
      env: { VEIL_DETECTOR__MODE: 'both', VEIL_DETECTOR__ADVANCED_URL: `http://127.0.0.1:${port}`, VEIL_SESSION_SECRET: '7a'.repeat(32) },
    });
  });
  afterAll(async () => {
    await server.stop();
    await new Promise((resolve) => sidecar.close(resolve));
  });

  it('tokenizes the whole IPv6 address, MAC address and Medicare number', async () => {
    const input = `addr ${IPV6} mac ${MAC} medicare ${MEDICARE} ok`;
    const response = await postJson(`${server.url}/v1/transform`, { input });
    expect(response.status, response.text).toBe(200);
    const entities = response.body.entities as { type: string; span: { start: number; end: number } }[];
    const byType = new Map(entities.map((entity) => [entity.type, [...input].slice(entity.span.start, entity.span.end).join('')]));
    expect(byType.get('ip_address')).toBe(IPV6);
    expect(byType.get('mac_address')).toBe(MAC);
    expect(byType.get('au_medicare')).toBe(MEDICARE);
    expect(entities.map((entity) => entity.type)).not.toContain('person');
    const safe = response.body.safe_text as string;
    for (const piece of ['e4fa', 'bcaa', 'dead', '00:1A', '2123', '45670']) expect(safe).not.toContain(piece);
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: safe, session_state: response.body.session_state });
    expect(restored.body.restored_text).toBe(input);
  });

  it('keeps the name part of an NER span that runs into a structured value', async () => {
    const input = 'Dr Jane e4fa::1 is the host';
    const response = await postJson(`${server.url}/v1/transform`, { input });
    expect(response.status, response.text).toBe(200);
    const entities = response.body.entities as { type: string; span: { start: number; end: number } }[];
    expect(entities.map((entity) => [entity.type, [...input].slice(entity.span.start, entity.span.end).join('')])).toEqual([
      ['person', 'Jane'],
      ['ip_address', 'e4fa::1'],
    ]);
    expect(response.body.safe_text).not.toContain('Jane');
    expect(response.body.safe_text).not.toContain('e4fa');
  });
});
