// Addresses and URLs that identify no one (docs/detection.md, "Values that identify no one"),
// against the real `veil serve` process with policies loaded from a directory: by default a
// documentation link and a loopback address reach the model unchanged while a URL carrying a
// card number, a personal site and a public address are tokenized; a policy that lists no
// released class protects them all; the card number never reaches the server's logs.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, ROOT, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const DOCS = 'https://docs.python.org/3/library/asyncio.html';
const LOOPBACK = '127.0.0.1';
const CARD = '4111111111111111';
const CARD_URL = `https://example.com/x?note=card+${CARD}`;
const PERSONAL_SITE = 'https://jane-doe.dev/';
const PUBLIC_IP = '81.2.69.160';
const TEXT = `Read ${DOCS} first. The dev server listens on ${LOOPBACK}:8080. The customer pasted ${CARD_URL}, see also ${PERSONAL_SITE} and the login from ${PUBLIC_IP}.`;

let dir: string;
let server: ServerProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'veil-e2e-nonid-'));
  const policies = join(dir, 'policies');
  // The shipped default policy, and a copy of it that releases no class.
  const shipped = readFileSync(join(ROOT, 'policies', 'default.yaml'), 'utf8');
  mkdirSync(policies);
  copyFileSync(join(ROOT, 'policies', 'default.yaml'), join(policies, 'default.yaml'));
  writeFileSync(
    join(policies, 'every-address.yaml'),
    `${shipped.replace(/^name: default$/m, 'name: every-address')}\ndetection:\n  non_identifying: {ip_address: [], url: []}\n`,
  );
  const config = join(dir, 'veil.yaml');
  writeFileSync(config, `policy:\n  directory: ${policies}\n`);
  server = await startVeil({ env: { VEIL_SESSION_SECRET: '7e'.repeat(32), VEIL_ALLOW_EPHEMERAL_AUDIT: '1' }, args: ['--config', config] });
});

afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('values that identify no one, through veil serve', () => {
  it('default policy: the documentation link and the loopback address pass, every personal value is tokenized', async () => {
    const { status, body } = await postJson(`${server.url}/v1/transform`, { input: TEXT });
    expect(status).toBe(200);
    const safe = body.safe_text as string;
    expect(safe).toContain(DOCS);
    expect(safe).toContain(`${LOOPBACK}:8080`);
    for (const raw of [CARD, 'jane-doe.dev', PUBLIC_IP]) expect(safe).not.toContain(raw);
    const types = (body.entities as { type: string }[]).map((entity) => entity.type).sort();
    expect(types).toEqual(['ip_address', 'url', 'url']);
  });

  it('a policy that releases no class protects every address and URL', async () => {
    const { status, body } = await postJson(`${server.url}/v1/transform`, { input: TEXT, policy: 'every-address' });
    expect(status).toBe(200);
    const safe = body.safe_text as string;
    for (const raw of [DOCS, LOOPBACK, CARD, 'jane-doe.dev', PUBLIC_IP]) expect(safe).not.toContain(raw);
  });

  it('/v1/detect reports what the transform protects, and the raw card never reaches the logs', async () => {
    const { status, body } = await postJson(`${server.url}/v1/detect`, { input: TEXT });
    expect(status).toBe(200);
    const found = (body.entities as { span: { start: number; end: number } }[]).map((entity) => TEXT.slice(entity.span.start, entity.span.end));
    expect(found).not.toContain(DOCS);
    expect(found).toContain(CARD_URL);
    expect(await settledLogs(server)).not.toContain(CARD);
  });
});
