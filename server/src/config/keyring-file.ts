// Session key rings as data: the `{current_kid, keys: [{kid, secret}]}` shape shared by the inline
// `session.keyring` and the file named by `session.keyring_file` (a Kubernetes Secret mounted as a
// file, re-read on change so keys rotate without a restart). One parser for both, so the rules
// and the problem texts cannot drift. Problems name keys and kids, never key material; a YAML
// syntax error is reported by position only, because the parser's text can quote the line.
import { readFileSync, statSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { KeyRing, KID_PATTERN } from '../domain/seal/keyring.js';
import { parseSecret } from './secrets.js';

/** A key-ring file larger than this is refused unread (16 keys need well under 4 KB). */
export const MAX_KEYRING_FILE_BYTES = 64 * 1024;
/** Most keys one ring may list (mirrors the config schema's maxItems). */
export const MAX_RING_KEYS = 16;

const SECRET_FORMAT = 'must be 32 bytes written as 64 hex characters or standard base64';

export interface ParsedKeyRing {
  readonly ring?: KeyRing;
  readonly problems: string[];
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Build a KeyRing from parsed data. `label` prefixes every problem (`session.keyring`, or the
 * file's path). `checkShape` re-checks the structure the config schema already checks for the
 * inline ring, so a file gets the same rules.
 */
export function keyRingFromData(data: unknown, label: string, checkShape: boolean): ParsedKeyRing {
  const problems: string[] = [];
  if (!isPlain(data)) return { problems: [`${label}: must be a mapping with current_kid and keys`] };
  const currentKid = data.current_kid;
  const keys = data.keys;
  if (checkShape) {
    for (const key of Object.keys(data)) {
      if (key !== 'current_kid' && key !== 'keys') problems.push(`${label}: unknown key ${/^[A-Za-z0-9_]{1,32}$/.test(key) ? key : '<key>'}`);
    }
    let unusable = false;
    if (typeof currentKid !== 'string' || !KID_PATTERN.test(currentKid)) {
      problems.push(`${label}.current_kid: must match pattern ^[A-Za-z0-9_-]{1,64}$`);
      unusable = true;
    }
    if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_RING_KEYS) {
      problems.push(`${label}.keys: must list 1 to ${MAX_RING_KEYS} keys`);
      unusable = true;
    }
    // Without a usable current_kid or key list there is nothing more to check.
    if (unusable) return { problems };
  }
  if (typeof currentKid !== 'string' || !Array.isArray(keys)) return { problems }; // the schema reported it
  const ring: { kid: string; key: Buffer }[] = [];
  const seen = new Set<string>();
  // False when an entry is malformed: the schema already reported it for the inline ring.
  let wellFormed = true;
  for (const [index, entry] of keys.entries()) {
    if (!isPlain(entry) || typeof entry.kid !== 'string' || typeof entry.secret !== 'string') {
      if (checkShape) problems.push(`${label}.keys[${index}]: must be a mapping with kid and secret`);
      wellFormed = false;
      continue;
    }
    if (checkShape) {
      for (const key of Object.keys(entry)) {
        if (key !== 'kid' && key !== 'secret') problems.push(`${label}.keys[${index}]: unknown key ${/^[A-Za-z0-9_]{1,32}$/.test(key) ? key : '<key>'}`);
      }
      if (!KID_PATTERN.test(entry.kid)) {
        problems.push(`${label}.keys[${index}].kid: must match pattern ^[A-Za-z0-9_-]{1,64}$`);
        continue;
      }
    }
    if (seen.has(entry.kid)) problems.push(`${label}.keys[${index}].kid: duplicates an earlier kid`);
    seen.add(entry.kid);
    const secret = parseSecret(entry.secret);
    if (secret === null) {
      problems.push(`${label}.keys[${index}].secret: ${SECRET_FORMAT}`);
      continue;
    }
    ring.push({ kid: entry.kid, key: secret });
  }
  if (!seen.has(currentKid)) problems.push(`${label}.current_kid: must be the kid of one of ${label}.keys`);
  if (problems.length > 0 || !wellFormed) return { problems };
  try {
    return { ring: new KeyRing(currentKid, ring), problems: [] };
  } catch (error) {
    // KeyRing messages name kids only, never key material.
    return { problems: [error instanceof Error ? error.message : `${label}: invalid`] };
  }
}

/** Read and parse a key-ring file (YAML or JSON). Never throws; problems name the file. */
export function readKeyRingFile(path: string): ParsedKeyRing {
  let text: string;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return { problems: [`session.keyring_file ${path}: is not a file`] };
    if (stats.size > MAX_KEYRING_FILE_BYTES) return { problems: [`session.keyring_file ${path}: larger than ${MAX_KEYRING_FILE_BYTES} bytes`] };
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = isPlain(error) && typeof error.code === 'string' ? error.code : 'read error';
    return { problems: [`session.keyring_file ${path}: cannot be read (${code})`] };
  }
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) return { problems: [`session.keyring_file ${path}: YAML syntax error (${document.errors[0]!.code})`] };
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 10 });
  } catch {
    return { problems: [`session.keyring_file ${path}: YAML could not be expanded`] };
  }
  return keyRingFromData(data, `session.keyring_file ${path}`, true);
}
