#!/usr/bin/env node
// A retrieval-augmented answer through Veil, end to end, against a real local store: SQLite
// full-text search (FTS5, through Node's built-in node:sqlite). Raw personal data never reaches the store or
// the model.
//
//   node examples/rag/run.mjs --url http://127.0.0.1:3000      # against a running Veil
//   node examples/rag/run.mjs --start-server [--ner]           # starts its own (make example-rag)
//
// Options: --db <file> (the SQLite store; default a new file in a temp directory),
// --api-key <key> (sent as X-API-Key when Veil runs with auth.mode api_key), --json (print one
// JSON summary instead of the narrated steps), --keep (keep the temporary store), --ner (with
// --start-server: also start the NER sidecar from ner/.venv, so names are tokenized too).
//
// What it proves, honestly: every raw value it sends (names included) is looked for in the
// store and in what the model sees. Values Veil cannot detect on this server (person names
// without the NER sidecar) are counted and named by type, with the reason; any other raw value
// found there is a failure (exit 1).
//
// The flow (interface.md 4.9 to 4.14):
//   1. POST /v1/rag/ingest/batch: three documents with a corpus_id, so a value gets the same
//      token in every document and query. Only safe chunks are stored, each with its
//      chunk_session_state, plus each document's session_state (needed to erase it).
//   2. POST /v1/rag/query: the question, tokenized with the same corpus tokens.
//   3. Retrieval: an FTS5 MATCH on the safe query's words and token ids. A token matches the
//      same token in the stored chunks because corpus tokens are deterministic.
//   4. POST /v1/rag/context: the retrieved chunks with their chunk_session_state, their
//      classification and access_level `internal` (the restricted document is filtered out).
//   5. A stand-in model answers using tokens from the context only.
//   6. POST /v1/rag/answer: the answer with the values restored.
//   7. POST /v1/rag/delete with the first document's session_state, and the document's chunks
//      are deleted from the store: its values now restore as [DELETED] and retrieval no longer
//      finds it.
//
// Exit status: 0 on success, 1 on an error (message on stderr), 2 on a usage error.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CORPUS = 'example-kb';
const TOKEN = /\{\{[^{}\s]+\}\}/g;

/** Sample documents. Every value is fictitious (example.com addresses, 555 numbers). */
export const DOCUMENTS = [
  {
    id: 'crm-ada',
    classification: 'internal',
    text:
      'Customer note. Ada Lovelace (ada.lovelace@example.com) asked about the renewal of contract 2291.\n\n' +
      'She prefers phone calls: +1 415 555 0134. Follow up on the renewal before Friday.',
  },
  {
    id: 'crm-grace',
    classification: 'public',
    text:
      'Customer note. Grace Hopper (grace.hopper@example.org) asked for the invoice of March.\n\n' +
      'Send the invoice to billing@example.org and copy grace.hopper@example.org.',
  },
  {
    id: 'hr-salary',
    classification: 'restricted',
    text: 'Restricted: the renewal bonus for ada.lovelace@example.com goes to IBAN DE89 3704 0044 0532 0130 00.',
  },
];

/**
 * Every raw personal value of the documents and the question, with its entity type: none of
 * them may appear in the store or reach the model. Names are found only by the NER sidecar.
 */
export const RAW_VALUES = [
  { type: 'person', value: 'Ada Lovelace' },
  { type: 'person', value: 'Grace Hopper' },
  { type: 'email', value: 'ada.lovelace@example.com' },
  { type: 'phone', value: '+1 415 555 0134' },
  { type: 'email', value: 'grace.hopper@example.org' },
  { type: 'email', value: 'billing@example.org' },
  { type: 'iban', value: 'DE89 3704 0044 0532 0130 00' },
];

/** Types only the NER sidecar detects (docs/ner.md). */
const NER_TYPES = new Set(['person', 'organization', 'location']);

export const QUESTION = 'What did ada.lovelace@example.com ask about the renewal, and how do I reach her?';

class ExampleError extends Error {}

function parseArgs(argv) {
  const options = { url: process.env.VEIL_URL, db: undefined, apiKey: process.env.VEIL_API_KEY, json: false, keep: false, startServer: false, ner: false };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    const value = () => {
      const next = argv[index + 1];
      if (next === undefined) usage(`${arg} needs a value`);
      index += 1;
      return next;
    };
    if (arg === '--url') options.url = value();
    else if (arg === '--db') options.db = value();
    else if (arg === '--api-key') options.apiKey = value();
    else if (arg === '--json') options.json = true;
    else if (arg === '--keep') options.keep = true;
    else if (arg === '--start-server') options.startServer = true;
    else if (arg === '--ner') options.ner = true;
    else usage(`unknown argument ${arg}`);
  }
  if (options.startServer && options.url !== undefined) usage('use either --url or --start-server');
  if (options.ner && !options.startServer) usage('--ner starts the sidecar with --start-server; against --url, start Veil with it yourself (make run)');
  if (!options.startServer) options.url ??= 'http://127.0.0.1:3000';
  return options;
}

function usage(message) {
  process.stderr.write(`rag example: ${message}\nusage: node examples/rag/run.mjs [--url http://127.0.0.1:3000 | --start-server [--ner]] [--db file] [--api-key key] [--json] [--keep]\n`);
  process.exit(2);
}

/** A tiny Veil client: JSON in (POST, or GET without a body), JSON out, errors as exceptions. */
function veilClient(baseUrl, apiKey) {
  const base = baseUrl.replace(/\/+$/, '');
  return async function call(path, body) {
    let response;
    try {
      response = await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(apiKey ? { 'x-api-key': apiKey } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new ExampleError(`cannot reach Veil at ${base}: ${error.cause?.code ?? error.message}`);
    }
    const text = await response.text();
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ExampleError(`${path}: HTTP ${response.status} with a non-JSON body`);
    }
    if (!response.ok) throw new ExampleError(`${path}: HTTP ${response.status} ${parsed.code ?? ''} ${parsed.error ?? ''}`.trim());
    return parsed;
  };
}

/** A free loopback port (for the sidecar, which cannot report the one it was given). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Start the NER sidecar (ner/.venv, `make ner-venv`) with a fresh shared secret, as `make run`
 * does; resolves with what `veil serve` needs to call it once it is ready.
 */
async function startSidecar() {
  const python = join(ROOT, 'ner/.venv/bin/python');
  if (!existsSync(python)) throw new ExampleError('--ner needs the sidecar environment: run `make ner-venv` first');
  const port = await freePort();
  const key = randomBytes(24).toString('hex');
  const child = spawn(python, ['-m', 'veil_ner'], { cwd: join(ROOT, 'ner'), env: { PATH: process.env.PATH ?? '', VEIL_NER_PORT: String(port), VEIL_NER_API_KEY: key }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new ExampleError(`the NER sidecar exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new ExampleError('the NER sidecar did not become ready within 120 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { env: { VEIL_DETECTOR__MODE: 'both', VEIL_DETECTOR__ADVANCED_URL: url, VEIL_DETECTOR__API_KEY: key }, stop: () => child.kill('SIGTERM') };
}

/**
 * Start `veil serve` on a free loopback port with fresh secrets (and the sidecar with `ner`);
 * resolves with its URL.
 */
async function startVeil(ner) {
  const sidecar = ner ? await startSidecar() : undefined;
  const child = spawn(process.execPath, [join(ROOT, 'server/bin/veil.js'), 'serve', '--host', '127.0.0.1', '--port', '0'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      VEIL_LOG_FORMAT: 'json',
      VEIL_SESSION_SECRET: randomBytes(32).toString('hex'),
      VEIL_CORPUS_SECRET: randomBytes(32).toString('hex'),
      ...(sidecar?.env ?? {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => {
    child.kill('SIGTERM');
    sidecar?.stop();
  };
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new ExampleError('veil serve did not start within 20 s (did you run `npx tsc -b`?)')), 20_000);
    child.stdout.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n')) {
        if (!line.includes('veil server listening')) continue;
        clearTimeout(timer);
        resolve({ url: JSON.parse(line).url, stop });
        return;
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      sidecar?.stop();
      reject(new ExampleError(`veil serve exited with ${code} before listening (did you run \`npx tsc -b\`?)`));
    });
  });
}

/** The store: documents (with the session_state needed to erase them) and an FTS5 chunk index. */
function openStore(file) {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS documents (
      doc_id TEXT PRIMARY KEY,
      classification TEXT NOT NULL,
      session_state TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS chunks (
      chunk_id INTEGER PRIMARY KEY,
      doc_id TEXT NOT NULL REFERENCES documents(doc_id),
      chunk_index INTEGER NOT NULL,
      classification TEXT NOT NULL,
      safe_text TEXT NOT NULL,
      chunk_session_state TEXT NOT NULL
    );
    -- Token ids such as e_1a2b... stay one term: '_' is a token character here.
    CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
      safe_text, content = 'chunks', content_rowid = 'chunk_id', tokenize = "unicode61 tokenchars '_'"
    );
  `);
  return db;
}

/** Run `work` in one transaction: committed when it returns, rolled back when it throws. */
function transaction(db, work) {
  db.exec('BEGIN');
  try {
    work();
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

function storeDocument(db, document, result) {
  const insertChunk = db.prepare('INSERT INTO chunks (doc_id, chunk_index, classification, safe_text, chunk_session_state) VALUES (?, ?, ?, ?, ?)');
  const index = db.prepare('INSERT INTO chunks_fts (rowid, safe_text) VALUES (?, ?)');
  transaction(db, () => {
    db.prepare('INSERT INTO documents (doc_id, classification, session_state) VALUES (?, ?, ?)').run(document.id, document.classification, result.session_state);
    for (const chunk of result.chunks) {
      const { lastInsertRowid } = insertChunk.run(document.id, chunk.chunk_index, document.classification, chunk.safe_text, chunk.chunk_session_state);
      index.run(lastInsertRowid, chunk.safe_text);
    }
  });
}

function eraseDocumentChunks(db, docId) {
  const rows = db.prepare('SELECT chunk_id, safe_text FROM chunks WHERE doc_id = ?').all(docId);
  const unindex = db.prepare("INSERT INTO chunks_fts (chunks_fts, rowid, safe_text) VALUES ('delete', ?, ?)");
  transaction(db, () => {
    for (const row of rows) unindex.run(row.chunk_id, row.safe_text);
    db.prepare('DELETE FROM chunks WHERE doc_id = ?').run(docId);
    db.prepare('DELETE FROM documents WHERE doc_id = ?').run(docId);
  });
  return rows.length;
}

/** FTS5 query from the safe question: its token ids and its longer words, OR-ed. */
function ftsQuery(safeQuery) {
  const terms = new Set();
  for (const token of safeQuery.match(TOKEN) ?? []) {
    const parts = token.slice(2, -2).split(':');
    terms.add(parts.at(-2)); // the id, e.g. e_1a2b...
  }
  const words = safeQuery.replace(TOKEN, ' ').toLowerCase().match(/[a-z]{5,}/g) ?? [];
  for (const word of words) terms.add(word);
  return [...terms].map((term) => `"${term}"`).join(' OR ');
}

function retrieve(db, safeQuery, limit = 4) {
  const match = ftsQuery(safeQuery);
  if (match === '') return [];
  return db
    .prepare(
      `SELECT c.doc_id, c.chunk_index, c.classification, c.safe_text, c.chunk_session_state
       FROM chunks_fts f JOIN chunks c ON c.chunk_id = f.rowid
       WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts), c.chunk_id LIMIT ?`,
    )
    .all(match, limit);
}

/** Every text cell of the store, to prove no raw value was written. */
function storeText(db, file) {
  const cells = [];
  for (const row of db.prepare('SELECT safe_text, chunk_session_state FROM chunks').all()) cells.push(row.safe_text, row.chunk_session_state);
  for (const row of db.prepare('SELECT session_state FROM documents').all()) cells.push(row.session_state);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  return `${cells.join('\n')}\n${readFileSync(file).toString('latin1')}`;
}

/**
 * The raw values found in `text`, split into those this server cannot detect (names without
 * the NER sidecar: reported, with the reason) and any other (a failure of the example).
 */
function rawValuesIn(text, nerActive) {
  const found = RAW_VALUES.filter(({ value }) => text.includes(value));
  const explained = found.filter(({ type }) => NER_TYPES.has(type) && !nerActive);
  const unexplained = found.filter((entry) => !explained.includes(entry));
  return { found, explained, unexplained };
}

function countByType(values) {
  const counts = {};
  for (const { type } of values) counts[type] = (counts[type] ?? 0) + 1;
  return Object.entries(counts)
    .map(([type, count]) => `${count} ${type}`)
    .join(', ');
}

/**
 * What raw values `where` holds: a summary and, when some are names this Veil cannot detect, a
 * note saying so (types only, never values). Throws when any other raw value is there.
 */
function reportRaw(where, check) {
  if (check.unexplained.length > 0) {
    throw new ExampleError(`raw values reached ${where} although Veil detects their types: ${countByType(check.unexplained)}`);
  }
  const summary = `raw values in ${where}: ${check.found.length} of ${RAW_VALUES.length} sent`;
  if (check.found.length === 0) return { summary };
  return {
    summary: `${summary} (${countByType(check.explained)})`,
    note:
      `   ${where}: names need the NER sidecar, which this Veil does not run (capabilities: ner_active false); ` +
      'start Veil with it (make run, or make example-rag) to tokenize them',
  };
}

/**
 * The stand-in model: it sees only the safe question and safe context, and answers with the
 * tokens it found there, the way a real model quotes the placeholders it was given.
 */
export function standInModel(safeQuestion, safeChunks) {
  const askedAbout = (safeQuestion.match(TOKEN) ?? [])[0];
  if (askedAbout === undefined || !safeChunks.some((chunk) => chunk.includes(askedAbout))) {
    return 'I could not find anything about that customer in the notes.';
  }
  const contacts = [...new Set(safeChunks.join(' ').match(TOKEN) ?? [])].filter((token) => token !== askedAbout && token.startsWith('{{phone:'));
  return `${askedAbout} asked about the renewal of contract 2291. ` + (contacts.length > 0 ? `Reach her by phone at ${contacts.join(' or ')}.` : 'The notes hold no phone number.');
}

async function run(options, say) {
  const call = veilClient(options.url, options.apiKey);
  const temp = options.db === undefined ? mkdtempSync(join(tmpdir(), 'veil-rag-example-')) : undefined;
  const file = options.db ?? join(temp, 'store.db');
  const db = openStore(file);
  try {
    // What this Veil can detect: names only with the NER sidecar active.
    const nerActive = (await call('/v1/capabilities')).ner_active === true;
    // 1. Ingest.
    const batch = await call('/v1/rag/ingest/batch', {
      items: DOCUMENTS.map((document) => ({
        text: document.text,
        corpus_id: CORPUS,
        document_metadata: { document_id: document.id, classification: document.classification },
      })),
    });
    let chunkCount = 0;
    for (const item of batch.results) {
      if (item.error !== undefined) throw new ExampleError(`ingest of ${DOCUMENTS[item.index].id} failed: ${item.code} ${item.error}`);
      storeDocument(db, DOCUMENTS[item.index], item.result);
      chunkCount += item.result.chunks.length;
    }
    const inStore = rawValuesIn(storeText(db, file), nerActive);
    const storeReport = reportRaw('the store', inStore);
    say(`1. ingested ${DOCUMENTS.length} documents into ${chunkCount} safe chunks; ${storeReport.summary}`);
    if (storeReport.note !== undefined) say(storeReport.note);
    for (const row of db.prepare('SELECT doc_id, chunk_index, safe_text FROM chunks ORDER BY chunk_id').all()) say(`     ${row.doc_id}#${row.chunk_index}: ${row.safe_text}`);

    // 2. Query.
    const query = await call('/v1/rag/query', { query: QUESTION, corpus_id: CORPUS });
    say(`2. safe query: ${query.safe_query}`);

    // 3. Retrieve by full-text match on the safe query.
    const hits = retrieve(db, query.safe_query);
    say(`3. retrieved ${hits.length} chunks: ${hits.map((hit) => `${hit.doc_id}#${hit.chunk_index}`).join(', ')}`);

    // 4. Context, filtered at access level `internal`.
    const context = await call('/v1/rag/context', {
      chunks: hits.map((hit) => hit.safe_text),
      document_sessions: hits.map((hit) => hit.chunk_session_state),
      chunk_classifications: hits.map((hit) => hit.classification),
      access_level: 'internal',
      corpus_id: CORPUS,
      session_state: query.session_state,
    });
    say(`4. context: ${context.safe_chunks.length} chunks for the model, ${context.chunks_filtered ?? 0} filtered by classification`);

    // 5. The model sees tokens only.
    const modelInput = `${query.safe_query}\n${context.safe_chunks.join('\n')}`;
    const seenByModel = rawValuesIn(modelInput, nerActive);
    const modelAnswer = standInModel(query.safe_query, context.safe_chunks);
    say(`5. model answer: ${modelAnswer}`);
    const modelReport = reportRaw('the model input', seenByModel);
    say(`   ${modelReport.summary}`);
    if (modelReport.note !== undefined) say(modelReport.note);

    // 6. Restore.
    const answer = await call('/v1/rag/answer', { answer: modelAnswer, session_state: context.session_state });
    say(`6. restored answer: ${answer.restored_answer}`);

    // 7. Erase the first document in Veil, then its chunks in the store.
    const erased = DOCUMENTS[0].id;
    const { session_state: erasedState } = db.prepare('SELECT session_state FROM documents WHERE doc_id = ?').get(erased);
    const deletion = await call('/v1/rag/delete', { session_state: erasedState });
    const removedChunks = eraseDocumentChunks(db, erased);
    say(`7. erased ${erased}: ${deletion.manifest.entities_revoked} values revoked (${deletion.manifest.status}), ${removedChunks} chunks removed from the store`);
    const afterErase = await call('/v1/rag/answer', { answer: modelAnswer, session_state: context.session_state });
    say(`   the same answer restored again: ${afterErase.restored_answer}`);
    const hitsAfter = retrieve(db, query.safe_query);
    say(`   retrieval now finds: ${hitsAfter.map((hit) => `${hit.doc_id}#${hit.chunk_index}`).join(', ') || 'nothing'}`);

    return {
      documents: DOCUMENTS.length,
      chunks_stored: chunkCount,
      ner_active: nerActive,
      raw_values_sent: RAW_VALUES.length,
      raw_values_in_store: inStore.found.length,
      raw_types_in_store: inStore.found.map(({ type }) => type),
      raw_values_in_model_input: seenByModel.found.length,
      safe_query: query.safe_query,
      retrieved: hits.map((hit) => `${hit.doc_id}#${hit.chunk_index}`),
      chunks_filtered: context.chunks_filtered ?? 0,
      model_input: modelInput,
      model_answer: modelAnswer,
      restored_answer: answer.restored_answer,
      erased_document: erased,
      delete_manifest: deletion.manifest,
      chunks_removed: removedChunks,
      restored_after_erase: afterErase.restored_answer,
      retrieved_after_erase: hitsAfter.map((hit) => `${hit.doc_id}#${hit.chunk_index}`),
      chunks_left_in_store: db.prepare('SELECT count(*) AS n FROM chunks').get().n,
    };
  } finally {
    db.close();
    if (temp !== undefined && !options.keep) rmSync(temp, { recursive: true, force: true });
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const say = options.json ? () => undefined : (line) => process.stdout.write(`${line}\n`);
  let server;
  try {
    if (options.startServer) {
      server = await startVeil(options.ner);
      options.url = server.url;
      say(`started veil serve at ${server.url}`);
    }
    const summary = await run(options, say);
    if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  } catch (error) {
    process.stderr.write(`rag example: ${error instanceof ExampleError ? error.message : error.stack ?? error}\n`);
    process.exitCode = 1;
  } finally {
    server?.stop();
  }
}

// Run when started as a program (through a symlinked path too), not when imported by a test.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
