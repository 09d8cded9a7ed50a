// Red-team findings (session 16, wave15/red): the output guard read a DOCX answer paragraph by
// paragraph and only its text runs. A session value split across two paragraphs or two table
// cells passed (each paragraph alone holds no value), and so did a value anywhere in the archive
// that is no text run: deleted text of a tracked change, the document's properties, an image's
// alternative text, a comment, a text entry (an altChunk). The part's paragraphs are now read
// together first (OutputGuard.acrossMembers), and every XML part outside its runs, every
// attribute value and every text entry is read by the guard (guardXmlPart).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DEFAULT_POLICY } from '@veil/common';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../domain/policy/index.js';
import type { TokenEntry } from '../domain/types.js';
import { createOutputGuard } from '../services/output-guard.js';
import type { LoadedPolicy } from '../services/policies.js';
import { guardXmlPart, openDocx, restoreDocx, restoreWordXml, type Restorer } from './docx.js';
import { documentXml, makeDocx } from '../../test/support/documents.js';

const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const LIMITS = { maxEntries: 1000, maxUncompressedBytes: 50 * 1024 * 1024 };
const EMAIL = 'red.sixteen.victim@corpsixteen.example';
const ENTRIES: TokenEntry[] = [
  { token: '{{email:e_001}}', type: 'email', value: EMAIL },
  { token: '{{person:e_002}}', type: 'person', value: 'Quentin Zyxwort' },
  { token: '{{phone:e_003}}', type: 'phone', value: '+1 415 555 0134' },
  { token: '{{organization:e_004}}', type: 'organization', value: 'Brightwater Analytics' },
] as unknown as TokenEntry[];

const policy = { compiled: new CompiledPolicy(DEFAULT_POLICY), patterns: [] } as unknown as LoadedPolicy;
function guardOf() {
  return createOutputGuard({ mode: 'strict', action: 'mask', exemptTypes: [], defaultRegion: 'US' }, { policy, language: 'en', caller: {}, entries: ENTRIES });
}

const restore: Restorer = (text) => ({ restoredText: text, tokensResolved: 0, tokensUnresolved: [] });

/** The part restored with the guard, as restoreDocx wires it. */
function guarded(xml: string, guard = guardOf()): string {
  const text = (value: string) => guard.guard(value, 'file');
  return restoreWordXml(guardXmlPart(xml, text, true), restore, text, (members) => guard.acrossMembers(members, 'file')).xml;
}

function runsOf(xml: string): string[] {
  return [...xml.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((match) => match[1]!);
}

describe('DOCX: a session value split across two paragraphs or two table cells', () => {
  it('masks the piece in each paragraph, at every cut of the value, and counts it', () => {
    for (let cut = 1; cut < EMAIL.length; cut++) {
      const guard = guardOf();
      const xml = guarded(documentXml(['An ordinary first paragraph.', `Write to ${EMAIL.slice(0, cut)}`, `${EMAIL.slice(cut)} today.`]), guard);
      const runs = runsOf(xml).join('\n');
      expect(runs).not.toContain(EMAIL.slice(0, cut).length >= 4 ? EMAIL.slice(0, cut) : EMAIL);
      expect(runs.startsWith('An ordinary first paragraph.\nWrite to [REDACTED:email]\n')).toBe(true);
      // Counted where found: across the boundary, and again where a piece alone reads as an e-mail.
      expect(guard.summary().findings.map((finding) => finding.type)).toEqual(['email']);
    }
  });

  it('masks a value split over two table cells of a row', () => {
    const table = `<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Quentin</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Zyxwort</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`;
    const xml = guarded(documentXml(['Names:']).replace('</w:body>', `${table}</w:body>`));
    expect(runsOf(xml)).toEqual(['Names:', '[REDACTED:person]', '[REDACTED:person]']);
  });

  it('leaves ordinary paragraphs and cells, and tokens next to a boundary, as they are', () => {
    const xml = documentXml(['Quentin wrote the report.', 'Brightwater is a lake.', 'Call {{phone:e_003}}', 'Analytics follow.']);
    expect(guarded(xml)).toBe(xml);
  });
});

describe('DOCX: a session value outside the text runs of a part', () => {
  it('masks deleted text, an alternative text, a comment and character data of any element', () => {
    const body =
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W_NS}"><w:body>` +
      `<w:p><w:del w:id="1" w:author="Editor"><w:r><w:delText>Write to ${EMAIL}</w:delText></w:r></w:del></w:p>` +
      `<w:p><w:r><w:drawing><wp:docPr id="1" name="Picture 1" descr="Photo of Quentin Zyxwort &amp; friends"/></w:drawing></w:r></w:p>` +
      `<!-- reviewer: ${EMAIL} --><w:p><w:r><w:t>An ordinary paragraph.</w:t></w:r></w:p></w:body></w:document>`;
    const guard = guardOf();
    const xml = guarded(body, guard);
    expect(xml).not.toContain(EMAIL);
    expect(xml).not.toContain('Zyxwort');
    expect(xml).toContain('<w:delText>Write to [REDACTED:email]</w:delText>');
    expect(xml).toContain('descr="Photo of [REDACTED:person] &amp; friends"');
    expect(xml).toContain('<!-- reviewer: [REDACTED:email] -->');
    expect(xml).toContain('<w:t>An ordinary paragraph.</w:t>');
    expect(guard.summary().findings).toEqual([{ type: 'email', count: 2 }, { type: 'person', count: 1 }]);
  });

  it('reads the document properties, any other XML part and a text entry; copies binary media', async () => {
    const core = `<?xml version="1.0"?><cp:coreProperties xmlns:cp="urn:cp" xmlns:dc="urn:dc"><dc:creator>${EMAIL}</dc:creator><dc:title>Notes</dc:title></cp:coreProperties>`;
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe]);
    const bytes = await makeDocx(['Hello.'], { 'docProps/core.xml': core, 'word/afchunk.txt': `Mail ${EMAIL}.`, 'word/media/image1.png': png });
    const guard = guardOf();
    const restored = await restoreDocx(openDocx(bytes, LIMITS, true), restore, (text) => guard.guard(text, 'file'), (members) => guard.acrossMembers(members, 'file'));
    const zip = await JSZip.loadAsync(restored.bytes);
    expect(await zip.file('docProps/core.xml')!.async('string')).toContain('<dc:creator>[REDACTED:email]</dc:creator><dc:title>Notes</dc:title>');
    expect(await zip.file('word/afchunk.txt')!.async('string')).toBe('Mail [REDACTED:email].');
    expect(new Uint8Array(await zip.file('word/media/image1.png')!.async('uint8array'))).toEqual(png);
  });
});

describe('DOCX guard precision: documents Word wrote', () => {
  it('leaves every part of every test document of mammoth byte for byte (a session of common values)', async () => {
    const root = join(dirname(createRequire(import.meta.url).resolve('mammoth/package.json')), 'test', 'test-data');
    const files = readdirSync(root).filter((name) => name.endsWith('.docx'));
    expect(files.length).toBeGreaterThanOrEqual(10);
    let parts = 0;
    for (const name of files) {
      const opened = openDocx(readFileSync(join(root, name)), LIMITS, true);
      const guard = guardOf();
      const restored = await restoreDocx(opened, restore, (text) => guard.guard(text, 'file'), (members) => guard.acrossMembers(members, 'file'));
      const zip = await JSZip.loadAsync(restored.bytes);
      for (const [part, xml] of opened.xml) {
        parts += 1;
        expect(new TextDecoder().decode(await zip.file(part)!.async('uint8array')), `${name} ${part}`).toBe(xml);
      }
      expect(guard.summary().triggered, name).toBe(false);
    }
    expect(parts).toBeGreaterThan(50);
  });
});
