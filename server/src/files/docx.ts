// DOCX: open an archive through the bounded ZIP reader (files/zip.ts), refuse XML that
// declares a DOCTYPE or entities (billion laughs, external entities: rejected outright, never
// expanded), extract the text with mammoth, and rehydrate a tokenized DOCX by editing the text
// runs of its WordprocessingML parts. A token can be split across several `w:t` runs (a model
// or an editor changed formatting mid-token), so runs are read as one stream per paragraph, the
// tokens found in the stream, and each restored value written into the run where its token
// starts while the token's remainder is removed from the following runs. The link rules of any
// output hold (session 12): the text right of a token, in its run or the next, can glue it to a
// host; a field instruction (`w:instrText`) and a relationship's target are link targets, so a
// token there gets the channel's url_restore_mode at most. Runs on a worker thread.
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { InflateBudget, inflateEntry, readZipDirectory, ZipError, type ZipEntry, type ZipLimits } from './zip.js';
import { findTokensLenient } from '../domain/repair/index.js';
import type { UnresolvedToken } from '../domain/rehydrate.js';
import { gluedTail, MarkupContext } from '../domain/restore/index.js';

export class DocxError extends Error {
  readonly problem: 'damaged' | 'limit' | 'unsafe' | 'unsupported';
  constructor(problem: DocxError['problem'], message: string) {
    super(message);
    this.name = 'DocxError';
    this.problem = problem;
  }
}

/** Entries whose content is XML (and so is scanned for DOCTYPE and entity declarations). */
function isXmlPart(name: string): boolean {
  return /\.(?:xml|rels|vml)$/i.test(name);
}

/** The parts whose text runs carry document text (body, headers, footers, notes, comments). */
const TEXT_PARTS = /^word\/(?:document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml$/;
/** The relationships of those parts: their targets are URLs (hyperlinks, linked images). */
const RELATIONSHIP_PARTS = /^word\/_rels\/[^/]+\.rels$/;

const DECLARATION = /<!DOCTYPE|<!ENTITY/i;

/** XML parts must be UTF-8 without a DOCTYPE: UTF-16 would hide a declaration from the scan. */
function checkedXml(data: Buffer): string {
  if (data.length >= 2 && ((data[0] === 0xfe && data[1] === 0xff) || (data[0] === 0xff && data[1] === 0xfe) || data[1] === 0x00)) {
    throw new DocxError('unsupported', 'the DOCX has XML parts that are not UTF-8');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new DocxError('damaged', 'the DOCX has XML parts that are not valid UTF-8');
  }
  if (DECLARATION.test(text)) throw new DocxError('unsafe', 'the DOCX has XML with a DOCTYPE or entity declarations');
  return text;
}

export interface OpenedDocx {
  readonly entries: readonly ZipEntry[];
  /** Every entry's content, inflated within the caps; XML parts already checked. */
  readonly contents: ReadonlyMap<string, Buffer>;
  /** The XML parts as text. */
  readonly xml: ReadonlyMap<string, string>;
}

function asDocxError(error: unknown): unknown {
  if (error instanceof ZipError) return new DocxError(error.problem, error.message);
  return error;
}

/**
 * Open and check an archive. `inflateAll` also inflates non-XML entries (media), which a
 * rehydrate must copy into its output; text extraction needs only the XML parts.
 */
export function openDocx(bytes: Uint8Array, limits: ZipLimits, inflateAll: boolean): OpenedDocx {
  try {
    const entries = readZipDirectory(bytes, limits);
    const names = new Set(entries.map((entry) => entry.name));
    if (!names.has('[Content_Types].xml') || !names.has('word/document.xml')) {
      throw new DocxError('unsupported', 'the archive is not a Word document (DOCX)');
    }
    const budget = new InflateBudget(limits.maxUncompressedBytes);
    const contents = new Map<string, Buffer>();
    const xml = new Map<string, string>();
    for (const entry of entries) {
      const xmlPart = isXmlPart(entry.name);
      if (!xmlPart && !inflateAll) continue;
      const data = inflateEntry(bytes, entry, budget);
      contents.set(entry.name, data);
      if (xmlPart) xml.set(entry.name, checkedXml(data));
    }
    return { entries, contents, xml };
  } catch (error) {
    throw asDocxError(error);
  }
}

/**
 * The document's text, via mammoth. mammoth gets an archive rebuilt from the checked XML parts
 * only (stored, not compressed), so it never parses bytes the checks did not see.
 */
export async function extractDocxText(opened: OpenedDocx): Promise<string> {
  const sanitized = new JSZip();
  for (const [name, text] of opened.xml) sanitized.file(name, text, { compression: 'STORE' });
  const buffer = await sanitized.generateAsync({ type: 'nodebuffer', compression: 'STORE' });
  let result: { value: string };
  try {
    result = await mammoth.extractRawText({ buffer });
  } catch {
    throw new DocxError('damaged', 'the DOCX could not be read');
  }
  return result.value.replace(/\n+$/, '\n');
}

// ---------------------------------------------------------------------------------------------
// Rehydrate: restore tokens inside text runs.

export interface RestoreResult {
  readonly restoredText: string;
  readonly tokensResolved: number;
  readonly tokensUnresolved: readonly UnresolvedToken[];
}

/**
 * Restores one text; pieces of one paragraph share a MarkupContext (fed the text between them
 * in order) so a URL or tag that opened in an earlier run still counts.
 */
export type Restorer = (text: string, markup?: MarkupContext) => RestoreResult;

/** The output guard as the file layer sees it: text in, text to restore out (may throw). */
export type TextGuard = (text: string) => string;

const ENTITY_VALUES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function unescapeXml(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(lt|gt|amp|quot|apos));/g, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return ENTITY_VALUES[name]!;
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

interface TextRun {
  /** Offsets of the run's content inside the XML. */
  readonly contentStart: number;
  readonly contentEnd: number;
  /** Offset of the opening tag, to add xml:space="preserve" when needed. */
  readonly tagStart: number;
  readonly tagEnd: number;
  readonly text: string;
  /** Offset of the run's text in the paragraph stream. */
  readonly streamStart: number;
}

/**
 * `<w:t>` runs, `<w:instrText>` runs (a field's instruction: HYPERLINK, INCLUDEPICTURE, ...) and
 * paragraph ends, in document order.
 */
const RUN_OR_PARAGRAPH_END = /(<w:(t|instrText)(?:\s[^>]*)?>)([^<]*)<\/w:(?:t|instrText)>|<\/w:p>/g;

interface Replacement {
  readonly start: number;
  readonly end: number;
  readonly value: string;
}

/** Rewrite one paragraph's runs: each replacement goes into the run where it starts. */
function rewriteRuns(runs: readonly TextRun[], replacements: readonly Replacement[]): Map<TextRun, string> {
  const rewritten = new Map<TextRun, string>();
  let next = 0;
  for (const run of runs) {
    const runEnd = run.streamStart + run.text.length;
    let text = '';
    let cursor = run.streamStart;
    while (next < replacements.length && replacements[next]!.end <= cursor) next += 1;
    for (let index = next; index < replacements.length && replacements[index]!.start < runEnd; index += 1) {
      const replacement = replacements[index]!;
      if (replacement.start >= cursor) {
        text += run.text.slice(cursor - run.streamStart, replacement.start - run.streamStart) + replacement.value;
      }
      cursor = Math.min(Math.max(cursor, replacement.end), runEnd);
    }
    text += run.text.slice(cursor - run.streamStart);
    if (text !== run.text) rewritten.set(run, text);
  }
  return rewritten;
}

/**
 * Restore a text every token of which stands in a link target (a field instruction, a
 * relationship's target): each token gets the channel's url_restore_mode at most.
 */
export function restoreAsLink(text: string, restore: Restorer): RestoreResult {
  const markup = new MarkupContext();
  const parts: string[] = [];
  const unresolved: UnresolvedToken[] = [];
  let resolved = 0;
  let cursor = 0;
  for (const candidate of findTokensLenient(text)) {
    const before = text.slice(cursor, candidate.start);
    parts.push(before);
    markup.feed(before);
    cursor = candidate.end;
    markup.glueRight();
    const result = restore(candidate.raw, markup);
    resolved += result.tokensResolved;
    unresolved.push(...result.tokensUnresolved);
    parts.push(result.restoredText);
  }
  parts.push(text.slice(cursor));
  return { restoredText: parts.join(''), tokensResolved: resolved, tokensUnresolved: unresolved };
}

/** A relationship's target attribute (hyperlinks, images linked from outside the package). */
const RELATIONSHIP_TARGET = /(<Relationship\s[^>]*?\bTarget=)(?:"([^"]*)"|'([^']*)')/g;

/**
 * Restore the targets of a relationships part (`word/_rels/*.rels`): a target is a URL, so a token
 * there is restored as inside one; the guard reads each target like text.
 */
export function restoreRelationships(xml: string, restore: Restorer, guard?: TextGuard): PartRestore {
  const unresolved: UnresolvedToken[] = [];
  let resolved = 0;
  const out = xml.replace(RELATIONSHIP_TARGET, (whole, head: string, double?: string, single?: string) => {
    const raw = double ?? single ?? '';
    const target = unescapeXml(raw);
    const guarded = guard !== undefined ? guard(target) : target;
    if (guarded === target && !target.includes('{{')) return whole;
    const result = restoreAsLink(guarded, restore);
    resolved += result.tokensResolved;
    unresolved.push(...result.tokensUnresolved);
    if (result.restoredText === target) return whole;
    return `${head}"${escapeXml(result.restoredText).replaceAll('"', '&quot;')}"`;
  });
  return { xml: out, tokensResolved: resolved, tokensUnresolved: unresolved };
}

export interface PartRestore {
  readonly xml: string;
  readonly tokensResolved: number;
  readonly tokensUnresolved: UnresolvedToken[];
}

/**
 * The output guard's reading of a whole part or answer, before its members are guarded one by
 * one (OutputGuard.acrossMembers): the values the model split across two of them.
 */
export type MembersGuard = (members: readonly string[]) => void;

/** One paragraph's text runs and its field-instruction runs: two streams. */
interface Paragraph {
  readonly text: { readonly runs: TextRun[]; stream: string };
  readonly instr: { readonly runs: TextRun[]; stream: string };
}

/**
 * Restore the tokens of one WordprocessingML part. With a guard, the part's paragraphs (and
 * table cells, which hold paragraphs) are first read together in document order (`across`:
 * a value the model split across two paragraphs or cells), then each paragraph is checked for
 * raw values the model wrote; a paragraph the guard changes (masked values) is restored as a
 * whole into its first run and its other runs emptied, since the masks do not line up with the
 * runs (formatting inside that paragraph is lost; no value is).
 */
export function restoreWordXml(xml: string, restore: Restorer, guard?: TextGuard, across?: MembersGuard): PartRestore {
  const unresolved: UnresolvedToken[] = [];
  let resolved = 0;
  const allRewrites: { run: TextRun; text: string }[] = [];

  const flushStream = (paragraph: readonly TextRun[], stream: string, link: boolean): void => {
    if (paragraph.length === 0) return;
    const guarded = guard !== undefined ? guard(stream) : stream;
    if (guarded !== stream) {
      const result = link ? restoreAsLink(guarded, restore) : restore(guarded);
      resolved += result.tokensResolved;
      unresolved.push(...result.tokensUnresolved);
      paragraph.forEach((run, index) => allRewrites.push({ run, text: index === 0 ? result.restoredText : '' }));
      return;
    }
    const replacements: Replacement[] = [];
    // The paragraph is one rendered whole: the text between tokens goes through its context, and
    // the text right of a token (in its run or the next ones) says whether it glues the token to a
    // host (restore/right-context.ts). A field instruction is a link target throughout.
    const markup = new MarkupContext();
    let fed = 0;
    for (const candidate of findTokensLenient(stream)) {
      markup.feed(stream.slice(fed, candidate.start));
      fed = candidate.end;
      if (link || gluedTail(stream, candidate.end, true).verdict !== 'plain') markup.glueRight();
      const result = restore(candidate.raw, markup);
      resolved += result.tokensResolved;
      unresolved.push(...result.tokensUnresolved);
      if (result.restoredText !== candidate.raw) replacements.push({ start: candidate.start, end: candidate.end, value: result.restoredText });
    }
    if (replacements.length > 0) {
      for (const [run, text] of rewriteRuns(paragraph, replacements)) allRewrites.push({ run, text });
    }
  };

  // A paragraph's text runs and its field-instruction runs: two streams (an instruction is not
  // rendered text, and its runs are split as Word pleases). The part's paragraphs are collected
  // first, so the guard reads them together before it reads each.
  const paragraphs: Paragraph[] = [];
  let current: Paragraph = { text: { runs: [], stream: '' }, instr: { runs: [], stream: '' } };
  const close = (): void => {
    if (current.text.runs.length > 0 || current.instr.runs.length > 0) paragraphs.push(current);
    current = { text: { runs: [], stream: '' }, instr: { runs: [], stream: '' } };
  };
  RUN_OR_PARAGRAPH_END.lastIndex = 0;
  for (let match = RUN_OR_PARAGRAPH_END.exec(xml); match !== null; match = RUN_OR_PARAGRAPH_END.exec(xml)) {
    if (match[1] === undefined) {
      close();
      continue;
    }
    const tag = match[1];
    const contentStart = match.index + tag.length;
    const text = unescapeXml(match[3]!);
    const into = match[2] === 't' ? current.text : current.instr;
    into.runs.push({ contentStart, contentEnd: contentStart + match[3]!.length, tagStart: match.index, tagEnd: contentStart, text, streamStart: into.stream.length });
    into.stream += text;
  }
  close();
  if (guard !== undefined && across !== undefined) {
    const members: string[] = [];
    for (const paragraph of paragraphs) {
      if (paragraph.text.runs.length > 0) members.push(paragraph.text.stream);
      if (paragraph.instr.runs.length > 0) members.push(paragraph.instr.stream);
    }
    across(members);
  }
  for (const paragraph of paragraphs) {
    flushStream(paragraph.text.runs, paragraph.text.stream, false);
    flushStream(paragraph.instr.runs, paragraph.instr.stream, true);
  }
  // The pieces found across paragraphs belong to this part only.
  if (guard !== undefined && across !== undefined) across([]);
  if (allRewrites.length === 0) return { xml, tokensResolved: resolved, tokensUnresolved: unresolved };

  allRewrites.sort((a, b) => a.run.tagStart - b.run.tagStart);
  const parts: string[] = [];
  let cursor = 0;
  for (const { run, text } of allRewrites) {
    let tag = xml.slice(run.tagStart, run.tagEnd);
    // Word drops leading and trailing spaces of a run unless told to keep them.
    if (!/xml:space=/.test(tag) && /^\s|\s$/.test(text)) tag = `${tag.slice(0, -1)} xml:space="preserve">`;
    parts.push(xml.slice(cursor, run.tagStart), tag, escapeXml(text));
    cursor = run.contentEnd;
  }
  parts.push(xml.slice(cursor));
  return { xml: parts.join(''), tokensResolved: resolved, tokensUnresolved: unresolved };
}

/** Markup of an XML part: a comment, a CDATA section, a processing instruction, a tag. */
const MARKUP = /<!--([\s\S]*?)-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<([^>]*)>/g;
/** An attribute of a tag, its value in either quotes. */
const ATTRIBUTE = /(\s([^\s=/>]+)\s*=\s*)(?:"([^"]*)"|'([^']*)')/g;
/** The opening tag of a text run or a field-instruction run (restoreWordXml reads those). */
const RUN_OPEN = /^w:(?:t|instrText)(?:\s|$)/;

/**
 * The output guard over everything of an XML part that is not a text run: character data
 * outside runs (deleted text of a tracked change, the document's properties, a chart's labels,
 * a custom XML part), comments, CDATA, and every attribute value (an image's alternative text,
 * a comment's author, a content control's title, a field's instruction in `w:fldSimple`), all
 * of which travel in the file the caller gets back. A text the guard changes is written back
 * escaped; the rest of the part stays byte for byte. `skipRuns`: the part's text runs are
 * restoreWordXml's (read there paragraph by paragraph). Namespace declarations name schemas and
 * are not read. A text repeated in the part (a style name, a revision id) is guarded once.
 */
export function guardXmlPart(xml: string, guard: TextGuard, skipRuns: boolean): string {
  const seen = new Map<string, string>();
  const check = (text: string): string => {
    if (!/[\p{L}\p{N}]/u.test(text)) return text;
    let guarded = seen.get(text);
    if (guarded === undefined) {
      guarded = guard(text);
      seen.set(text, guarded);
    }
    return guarded;
  };
  const parts: string[] = [];
  let changed = false;
  let cursor = 0;
  let inRun = false;
  const characterData = (raw: string): void => {
    if (inRun || raw.length === 0) {
      parts.push(raw);
      return;
    }
    const text = unescapeXml(raw);
    const guarded = check(text);
    if (guarded === text) parts.push(raw);
    else {
      changed = true;
      parts.push(escapeXml(guarded));
    }
  };
  MARKUP.lastIndex = 0;
  for (let match = MARKUP.exec(xml); match !== null; match = MARKUP.exec(xml)) {
    characterData(xml.slice(cursor, match.index));
    cursor = match.index + match[0].length;
    const [whole, comment, cdata, tag] = match;
    if (comment !== undefined || cdata !== undefined) {
      const text = comment ?? cdata!;
      const guarded = check(text);
      if (guarded === text) parts.push(whole);
      else {
        changed = true;
        parts.push(comment !== undefined ? `<!--${guarded.replaceAll('--', '- -')}-->` : `<![CDATA[${guarded.replaceAll(']]>', ']] >')}]]>`);
      }
      continue;
    }
    if (tag === undefined) {
      parts.push(whole);
      continue;
    }
    inRun = skipRuns && RUN_OPEN.test(tag) && !tag.endsWith('/');
    const rewritten = tag.replace(ATTRIBUTE, (attribute, head: string, name: string, double?: string, single?: string) => {
      if (name === 'xmlns' || name.startsWith('xmlns:')) return attribute;
      const text = unescapeXml(double ?? single ?? '');
      const guarded = check(text);
      if (guarded === text) return attribute;
      changed = true;
      return `${head}"${escapeXml(guarded).replaceAll('"', '&quot;')}"`;
    });
    parts.push(rewritten === tag ? whole : `<${rewritten}>`);
  }
  characterData(xml.slice(cursor));
  return changed ? parts.join('') : xml;
}

/** Valid UTF-8 text without NUL bytes: an entry Word or a reader may show as text (an altChunk). */
function asText(data: Buffer): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}

export interface DocxRestore {
  readonly bytes: Uint8Array;
  readonly tokensResolved: number;
  readonly tokensUnresolved: UnresolvedToken[];
}

/**
 * Restore every text part and write the archive back (other entries copied unchanged). With a
 * guard, every XML part is read by it outside its text runs too (guardXmlPart), and an entry
 * that is text (UTF-8, no NUL byte: an altChunk, a custom part) is read as text; binary media
 * are copied as they are.
 */
export async function restoreDocx(opened: OpenedDocx, restore: Restorer, guard?: TextGuard, across?: MembersGuard): Promise<DocxRestore> {
  const output = new JSZip();
  let resolved = 0;
  const unresolved: UnresolvedToken[] = [];
  for (const entry of opened.entries) {
    const original = opened.xml.get(entry.name);
    const textPart = TEXT_PARTS.test(entry.name);
    const xml = original !== undefined && guard !== undefined ? guardXmlPart(original, guard, textPart) : original;
    if (xml !== undefined && textPart) {
      const restored = restoreWordXml(xml, restore, guard, across);
      resolved += restored.tokensResolved;
      unresolved.push(...restored.tokensUnresolved);
      output.file(entry.name, restored.xml, { compression: 'DEFLATE' });
      continue;
    }
    if (xml !== undefined && RELATIONSHIP_PARTS.test(entry.name)) {
      const restored = restoreRelationships(xml, restore, guard);
      resolved += restored.tokensResolved;
      unresolved.push(...restored.tokensUnresolved);
      output.file(entry.name, restored.xml, { compression: 'DEFLATE' });
      continue;
    }
    if (xml !== undefined) {
      output.file(entry.name, xml === original ? opened.contents.get(entry.name)! : xml, { compression: entry.method === 8 ? 'DEFLATE' : 'STORE' });
      continue;
    }
    const data = opened.contents.get(entry.name);
    if (data === undefined) throw new DocxError('damaged', 'the DOCX could not be read');
    const text = guard !== undefined ? asText(data) : undefined;
    if (text !== undefined) {
      const guarded = guard!(text);
      if (guarded !== text) {
        output.file(entry.name, guarded, { compression: entry.method === 8 ? 'DEFLATE' : 'STORE' });
        continue;
      }
    }
    output.file(entry.name, data, { compression: entry.method === 8 ? 'DEFLATE' : 'STORE' });
  }
  // Entries keep their original order ([Content_Types].xml first in every Office-written file).
  const bytes = await output.generateAsync({ type: 'uint8array', compression: 'DEFLATE', compressionOptions: { level: 6 } });
  return { bytes, tokensResolved: resolved, tokensUnresolved: unresolved };
}
