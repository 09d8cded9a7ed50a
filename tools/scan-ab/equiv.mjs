// Span equivalence of the built-in detection between two builds: `detectAll` of each build, and
// what the default non-identifying release (identifying.ts: public URLs, documentation addresses)
// keeps of it, on
// every text of every corpus in data/ (each record's text, with its language hint and without
// one), on the ratio benchmark's texts, and on random texts made of entity-shaped fragments, case
// and Unicode variants; prints every difference and exits 1 if there is one. A performance change
// to domain/detect or domain/text must leave this at 0 differences (BENCHMARKS.md, "Session 10
// (wave9/large)"). Usage:
//   git worktree add /tmp/wt-base <rev> && (cd /tmp/wt-base && ln -s /work/main/node_modules && npx tsc -b server)
//   node tools/scan-ab/equiv.mjs /tmp/wt-base/server/dist server/dist [random texts, default 20000]
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [baseDist, newDist, randomArg] = process.argv.slice(2);
if (baseDist === undefined || newDist === undefined) {
  console.error('usage: node tools/scan-ab/equiv.mjs BASE_DIST NEW_DIST [RANDOM_TEXTS]');
  process.exit(2);
}
const load = async (dist) => {
  const { detectAll } = await import(pathToFileURL(resolve(dist, 'domain/detect/index.js')).href);
  const { dropNonIdentifying, DEFAULT_NON_IDENTIFYING } = await import(pathToFileURL(resolve(dist, 'domain/detect/identifying.js')).href);
  return (text, options) => {
    const found = detectAll(text, options);
    return { found, kept: dropNonIdentifying(text, found, DEFAULT_NON_IDENTIFYING) };
  };
};
const baseDetect = await load(baseDist);
const newDetect = await load(newDist);
const { textWithEntities, prose } = await import(pathToFileURL(resolve(newDist, 'bench/common.js')).href);

const dataDir = resolve(import.meta.dirname, '../../data');
let compared = 0;
let differences = 0;

function compare(source, text, language) {
  const options = language === undefined ? undefined : { language };
  const a = JSON.stringify(baseDetect(text, options));
  const b = JSON.stringify(newDetect(text, options));
  compared++;
  if (a === b) return;
  differences++;
  // A held-out test record is never printed (it would be read while tuning): counted only.
  if (source.startsWith('heldout-presidio-synth')) console.log(`DIFFERENT ${source.split(':')[0]} (a held-out test record, not shown)`);
  else if (differences <= 20) console.log(`DIFFERENT ${source} (language ${language ?? 'none'}): ${JSON.stringify(text.slice(0, 200))}\n  base ${a.slice(0, 400)}\n  new  ${b.slice(0, 400)}`);
}

for (const file of readdirSync(dataDir).filter((name) => name.endsWith('.jsonl')).sort()) {
  let texts = 0;
  for (const line of readFileSync(resolve(dataDir, file), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line);
    if (typeof record.text !== 'string') continue;
    compare(`${file}:${record.id}`, record.text, undefined);
    if (typeof record.lang === 'string') compare(`${file}:${record.id}`, record.text, record.lang);
    texts++;
  }
  console.log(`${file}: ${texts} texts`);
}
for (const size of [1024, 10 * 1024, 100 * 1024]) compare(`textWithEntities(${size})`, textWithEntities(size, 180), undefined);
compare('prose', prose(20000, 3), undefined);

// Random texts: fragments around every anchor the scan dispatches on (word pairs, key prefixes,
// schemes, labels, digit words), in any case, glued or spaced, with non-ASCII neighbours.
const FRAGMENTS = [
  'jane@example.com', 'jane [at] corp [dot] example', ' at ', ' dot ', '@', '.', ':', '::', '=', '+', '(', ')', '-', '/', ' ', '\n', '\t',
  '4111 1111 1111 1111', '4111', '12', '2024', '07', 'DE89 3704 0044 0532 0130 00', 'GB82WEST12345698765432', 'DE89', '123-45-6789',
  '192.168.0.1', '2001:db8::1', 'ffff', 'dead', 'beef:', '00:1A:2B:3C:4D:5E', 'https://x.org/a(b)', 'http://', 'HTTPS://', 'ftp://',
  'ftps://', 'www.', 'WWW.', 'wWw.example.com', 'March', 'mar', 'March 12, 2024', 'März', 'password', 'Password: ', 'pwd=', 'token',
  'api key', 'secret', 'AKIA', 'AKIAIOSFODNN7EXAMPLE', 'IOSFODNN7EXAMPLE', 'eyJhbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiIxIn0', 'ey', 'eY',
  '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----', 'MIIE', 'bc1q', 'BC1Q', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  'bC1', '0x', '0x52908400098527886E0F7030069857D2E4169EE7', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', 'SWIFT', 'DEUTDEFF', 'deutdeff',
  'sk-', 'sk-proj-', 'sk_', 'SK', 'SG.', 'ghp_', 'github_pat_', 'xoxb-', 'glpat-', 'npm_', 'hf_', 'gsk_', 'key-', 'ya29.', 'AIza', 'dapi',
  'MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs', 'N', 'O', 'M', 'S', 'x9613851n', 'ab 12 34 56 c', 'AB123456C',
  'X-1234567-L', 'postgres://user:pw@db:5432/x', 'mongodb+srv://a:b@c/d', 'jdbc:mysql://u:p@h/db', 'redis:', 'card', 'card4111111111111111',
  'ssn', 'SSN078-05-1120', 'tel', 'tel4155550100', 'DOB03/04/1985', 'four', 'one', 'oh', 'double', 'zero', 'null', 'eins', 'fünf',
  'un', 'deux', 'Zéro', 'quattro', 'três', 'four one one one', 'call me on four one five five five five zero one double zero',
  'mysql -pS3cr3t', 'curl -u admin:S3cr3t', '--password ', '-p', 'sshpass -p ', 'account number ', 'cvv ', 'MRN ', 'member id ',
  'driver license ', 'DL ', 'a/c ', '&#64;', '%40', '%2B', '\u0302', '😀', '\uD800', 'é', 'É', 'ü', 'ß', 'Ж', '密码', '電話', '８１４',
  '+44 20 7946 0958', '(415) 555-0134', 'https://docs.python.org/3/whatsnew/3.12.html', 'https://github.com/nodejs/node/blob/main/README.md',
  'https://www.example.com/products?page=2&sort=price', 'https://example.org/a+b%20c?q=1+2', 'https://x.org/%E0%A4%A', 'https://linkedin.com/in/jane',
  'https://jane.github.io/', 'https://acme.atlassian.net/wiki', 'https://example.com/users/4711', 'http://10.0.0.1/admin', '?email=jane%40corp.example',
  // Spelled e-mail marks (the scan hands their positions to email-spelled.ts, session 14).
  'jane.roe @ corp.example', 'jane.roe@ corp.example', 'jane_roe @corp.example', 'jan(a)firma.fi', ' arroba ', ' ÄT ', ' MAŁPA ',
  '\u212alammeraffe', 'apenſtaartje', '(at)', '{ at }', '<AT>', '[a]', ' @ ', '@ ', ' @', 'j o h n @ c o r p . e x a m p l e',
  'https://example.org/#/profile/8812', 'https://host-81-2-69-160.isp.example/x', 'https://example.org/track?id=Xk3Lm9Qp2Rs7Tv5W', '_', '__', 'a', 'I', 'to', 'of', 'the', 'Be', 'hf', 'Fo', 'wW', 'Ht', 'hT', 'e', 'b', 'B',
];
// mulberry32: a small seeded generator whose low bits are as random as its high ones.
let seed = 12345;
const random = (n) => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n | 0;
};
const randomCount = Number(randomArg ?? 20000);
for (let index = 0; index < randomCount; index++) {
  const parts = [];
  const count = 1 + random(24);
  for (let k = 0; k < count; k++) {
    let part = FRAGMENTS[random(FRAGMENTS.length)];
    const variant = random(8);
    if (variant === 0) part = part.toUpperCase();
    else if (variant === 1) part = part.toLowerCase();
    else if (variant === 2) part = part.slice(0, 1 + random(Math.max(1, part.length)));
    parts.push(part);
    const glue = random(4);
    if (glue === 0) parts.push(' ');
    else if (glue === 1) parts.push([',', '. ', ': ', '; ', '\n'][random(5)]);
  }
  compare('random', parts.join(''), random(4) === 0 ? ['de', 'fr', 'en', 'pt-BR'][random(4)] : undefined);
}

console.log(`${compared} texts compared, ${differences} with different spans`);
process.exit(differences === 0 ? 0 : 1);
