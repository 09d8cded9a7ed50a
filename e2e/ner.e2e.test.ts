// The server with the real NER sidecar process (ner/.venv, built by `make ner-venv`, which
// `make test` runs first): names are detected and restored end to end; a wrong shared secret
// makes `both` fall back with a warning and `advanced` fail closed; lone surrogates and a 1 MB
// input are detected exactly; a killed sidecar is reported with its cause; JSON, chat, batch,
// stream and RAG input get the same NER as text.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nerPieces } from '../server/src/services/ner.js';
import { logsWith, postJson, startVeil, settledLogs, type ServerProcess } from './support/server.js';
import { nerAvailable as available, startSidecar } from './support/sidecar.js';

const KEY = 'e2e'.repeat(11);

describe.skipIf(!available)('veil with the real NER sidecar', () => {
  let sidecar: ChildProcess;
  let sidecarUrl = '';
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    ({ child: sidecar, url: sidecarUrl } = await startSidecar({ key: KEY }));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    sidecar.kill('SIGTERM');
  });

  const start = async (mode: string, key: string, url = sidecarUrl, timeout = '5'): Promise<ServerProcess> => {
    const server = await startVeil({
      env: { VEIL_DETECTOR__MODE: mode, VEIL_DETECTOR__ADVANCED_URL: url, VEIL_DETECTOR__API_KEY: key, VEIL_DETECTOR_TIMEOUT_SECS: timeout },
    });
    servers.push(server);
    return server;
  };

  it('detects and restores names in mode both', async () => {
    const server = await start('both', KEY);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const input = 'Yesterday Barack Obama met Angela Merkel in Berlin; write to press@example.org.';
    const transformed = await postJson(`${server.url}/v1/transform`, { input });
    expect(transformed.status).toBe(200);
    expect(transformed.body.detector_mode).toBe('builtin_and_ner');
    const types = transformed.body.entities.map((entity: any) => entity.type);
    expect(types).toContain('person');
    expect(types).toContain('email');
    expect(transformed.body.safe_text).not.toContain('Obama');
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: transformed.body.session_state });
    expect(restored.body.restored_text).toBe(input);
    expect(await settledLogs(server)).not.toContain('Obama');
  });

  // Issue 18: the sidecar's recognition pipeline through the real server. Ordinary prompts stay
  // as typed; a street address, a German name and a firm name are protected and restored.
  it('leaves ordinary prompts alone and protects addresses and names in other languages', async () => {
    const server = await start('both', KEY);
    for (const input of ['Explain Kubernetes. Reply in JSON format.', 'Salut, ça va ? The plan costs 20 EUR per month.', 'INFO  server started; set the Bearer token in config.yaml']) {
      const untouched = await postJson(`${server.url}/v1/transform`, { input });
      expect(untouched.status).toBe(200);
      expect(untouched.body.safe_text).toBe(input);
    }
    const input = 'Hallo Jens, bitte schick die Rechnung an Harter Gruppe, Hauptstraße 5, 10115 Berlin.';
    const transformed = await postJson(`${server.url}/v1/transform`, { input, language: 'de' });
    expect(transformed.status).toBe(200);
    for (const value of ['Jens', 'Harter Gruppe', 'Hauptstraße 5']) expect(transformed.body.safe_text).not.toContain(value);
    const types = transformed.body.entities.map((entity: any) => entity.type);
    expect(types).toEqual(expect.arrayContaining(['person', 'organization', 'location']));
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: transformed.body.session_state });
    expect(restored.body.restored_text).toBe(input);
  });

  it('falls back with a warning (both) or fails closed (advanced) when the secret is wrong', async () => {
    const both = await start('both', 'wrong'.repeat(8));
    const fallback = await postJson(`${both.url}/v1/transform`, { input: 'Barack Obama, mail a@example.org' });
    expect(fallback.status).toBe(200);
    expect(fallback.body.detector_mode).toBe('builtin_regex');
    expect(fallback.body.warnings.join(' ')).toMatch(/the NER sidecar rejected the API key \(HTTP 401\)/);
    const advanced = await start('advanced', 'wrong'.repeat(8));
    const refused = await postJson(`${advanced.url}/v1/transform`, { input: 'Barack Obama, mail a@example.org' });
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('VEIL_DETECTION_FAILED');
    expect(refused.text).not.toContain('Obama');
  });

  it('reports degraded NER for a language without a model', async () => {
    const server = await start('both', KEY);
    const response = await postJson(`${server.url}/v1/transform`, { input: 'Barack Obama besuchte Berlin.', language: 'de' });
    expect(response.status).toBe(200);
    expect(response.body.detector_mode).toBe('builtin_and_ner');
    expect(response.body.warnings.join(' ')).toMatch(/degraded NER/);
  });

  it('times out against a sidecar that stopped answering (504 in advanced, fallback in both)', async () => {
    const advanced = await start('advanced', KEY, sidecarUrl, '1');
    const both = await start('both', KEY, sidecarUrl, '1');
    sidecar.kill('SIGSTOP');
    try {
      const timedOut = await postJson(`${advanced.url}/v1/transform`, { input: 'Barack Obama' });
      expect(timedOut.status).toBe(504);
      expect(timedOut.body.code).toBe('VEIL_DETECTION_FAILED');
      const fallback = await postJson(`${both.url}/v1/transform`, { input: 'Barack Obama, a@example.org' });
      expect(fallback.status).toBe(200);
      expect(fallback.body.detector_mode).toBe('builtin_regex');
    } finally {
      sidecar.kill('SIGCONT');
    }
  });

  it('detects names with exact spans around lone surrogates at any position', async () => {
    const server = await start('advanced', KEY);
    const name = 'Angela Merkel';
    for (const input of [
      `\ud800Yesterday ${name} met the press.`,
      `Yesterday ${name}\udc00 met the press.`,
      `Yesterday \ud83d ${name} met the press. \udfff`,
      `😀\ud800 Yesterday ${name} met the press.\ud800`,
    ]) {
      const transformed = await postJson(`${server.url}/v1/transform`, { input });
      expect(transformed.status, transformed.text).toBe(200);
      const start = [...input.slice(0, input.indexOf(name))].length;
      const persons = transformed.body.entities.filter((entity: any) => entity.type === 'person');
      expect(persons.map((entity: any) => entity.span)).toEqual([{ start, end: start + name.length }]);
      expect(transformed.body.safe_text).not.toContain('Merkel');
      const restored = await postJson(`${server.url}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: transformed.body.session_state });
      expect(restored.body.restored_text).toBe(input);
    }
  });

  it('finds the names at every cut of a 1 MB input, without a timeout', async () => {
    const server = await start('advanced', KEY);
    // Names the small English model tags as PERSON in this clause wherever it stands (it calls
    // some others, e.g. Olaf Scholz, an organization), so a miss can only come from a cut.
    const names = ['Barack Obama', 'Angela Merkel', 'Emmanuel Macron', 'Justin Trudeau', 'Jacinda Ardern', 'Boris Johnson', 'Joe Biden'];
    // No sentence ends or line breaks: pieces are cut at spaces, so some cuts fall inside a name.
    let input = '';
    const occurrences: [number, number][] = [];
    for (let index = 0; input.length < 1_000_000; index += 1) {
      const name = names[index % names.length]!;
      const clause = `and the committee heard from ${name} about the budget${index % 3 === 0 ? ' and the schedule' : ''} `;
      const at = input.length + clause.indexOf(name);
      occurrences.push([at, at + name.length]);
      input += clause;
    }
    const cuts = nerPieces(input, 10_000).slice(1).map((piece) => piece.ownStart);
    expect(cuts.length).toBeGreaterThan(90);
    expect(cuts.filter((cut) => occurrences.some(([start, end]) => start < cut && cut < end)).length).toBeGreaterThan(0);
    const transformed = await postJson(`${server.url}/v1/transform`, { input });
    expect(transformed.status, transformed.text.slice(0, 300)).toBe(200);
    expect(transformed.body.detector_mode).toBe('builtin_and_ner');
    // ASCII input: code points are UTF-16 offsets.
    const found = new Set(transformed.body.entities.filter((entity: any) => entity.type === 'person').map((entity: any) => `${entity.span.start}-${entity.span.end}`));
    for (const cut of cuts) {
      const near = occurrences.filter(([start, end]) => end > cut - 300 && start < cut + 300);
      expect(near.length).toBeGreaterThan(0);
      for (const [start, end] of near) expect(found.has(`${start}-${end}`), `name at ${start} near the cut at ${cut}`).toBe(true);
    }
    expect(found.size).toBeGreaterThanOrEqual(Math.floor(occurrences.length * 0.99));
  }, 300_000);

  it('names the cause and reports ner_active false once the sidecar is killed', async () => {
    const own = await startSidecar({ key: KEY });
    const server = await start('both', KEY, own.url);
    expect(((await (await fetch(`${server.url}/v1/capabilities`)).json()) as { ner_active: boolean }).ner_active).toBe(true);
    const exited = new Promise((resolve) => own.child.once('exit', resolve));
    own.child.kill('SIGKILL');
    await exited;
    const response = await postJson(`${server.url}/v1/transform`, { input: 'Barack Obama, a@example.org' });
    expect(response.status).toBe(200);
    expect(response.body.detector_mode).toBe('builtin_regex');
    expect(response.body.warnings.join(' ')).toMatch(/the NER sidecar could not be reached \(ECONNREFUSED\)/);
    expect(((await (await fetch(`${server.url}/v1/capabilities`)).json()) as { ner_active: boolean }).ner_active).toBe(false);
    const health = (await (await fetch(`${server.url}/v1/health`)).json()) as { components: { detector: { message: string } } };
    expect(health.components.detector.message).toMatch(/^builtin_and_ner; the NER sidecar is not answering: the NER sidecar could not be reached \(ECONNREFUSED\)$/);
    const logs = await logsWith(server, /"event":"ner_unavailable"/);
    expect(logs).toMatch(/"event":"ner_unavailable","reason":"unreachable"/);
    expect(logs).not.toContain('Obama');
  }, 120_000);

  it('gives chat, JSON, batch, stream and RAG input the same NER as text', async () => {
    const server = await start('both', KEY);
    const surnames = /Merkel|Obama|Trudeau|Ardern/;
    const messages = [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Please book a table for Angela Merkel tomorrow.' },
      {
        role: 'assistant',
        content: 'I booked it for Barack Obama last week.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'book', arguments: JSON.stringify({ guest: 'Justin Trudeau', party: 2 }) } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Reservation confirmed for Jacinda Ardern.' },
    ];
    const chat = await postJson(`${server.url}/v1/transform`, { input_messages: messages });
    expect(chat.status, chat.text).toBe(200);
    expect(chat.body.detector_mode).toBe('builtin_and_ner');
    expect(JSON.stringify(chat.body.safe_messages)).not.toMatch(surnames);
    expect(chat.body.entities.filter((entity: any) => entity.type === 'person').map((entity: any) => entity.path)).toEqual([
      '/messages/1/content',
      '/messages/2/content',
      '/messages/2/tool_calls/0/function/arguments/guest',
      '/messages/3/content',
    ]);
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: JSON.stringify(chat.body.safe_messages), session_state: chat.body.session_state });
    expect(JSON.parse(restored.body.restored_text)).toEqual(messages);

    const json = await postJson(`${server.url}/v1/transform`, { input_json: { guest: { name: 'Angela Merkel', note: 'Barack Obama will join' } } });
    expect(json.status).toBe(200);
    expect(JSON.stringify(json.body.safe_json)).not.toMatch(surnames);

    const batch = await postJson(`${server.url}/v1/batch/transform`, {
      items: [{ text: 'Call Angela Merkel.' }, { input_json: { guest: 'Barack Obama' } }, { input_messages: [{ role: 'user', content: 'I am Justin Trudeau.' }] }],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results.map((result: any) => result.entities_detected)).toEqual([1, 1, 1]);
    expect(JSON.stringify(batch.body.results)).not.toMatch(surnames);

    const stream = await fetch(`${server.url}/v1/transform/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_messages: messages }),
    });
    const frames = await stream.text();
    expect(stream.status).toBe(200);
    expect(frames).toContain('{{person:');
    expect(frames).not.toMatch(surnames);

    const ingest = await postJson(`${server.url}/v1/rag/ingest`, { text: 'Minutes of the meeting.\n\nJustin Trudeau joined the call and Angela Merkel presented the plan.' });
    expect(ingest.status, ingest.text).toBe(200);
    expect(JSON.stringify(ingest.body.chunks)).not.toMatch(surnames);
    expect(ingest.body.total_entities).toBe(2);
    expect(await settledLogs(server)).not.toMatch(surnames);
  });

  it('falls back when the sidecar has no secret configured (it refuses every detect call)', async () => {
    const keyless = await startSidecar({ waitFor: '/livez' });
    try {
      const server = await start('both', KEY, keyless.url);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      const response = await postJson(`${server.url}/v1/transform`, { input: 'Barack Obama, a@example.org' });
      expect(response.status).toBe(200);
      expect(response.body.warnings.join(' ')).toMatch(/the NER sidecar is unavailable \(HTTP 503/);
    } finally {
      keyless.child.kill('SIGTERM');
    }
  }, 120_000);
});
