// PDF text extraction with unpdf (PDF.js, serverless build): embedded text only, no OCR
// fallback (interface.md 4.18). Pages are read one at a time so the text cap is checked as the
// text grows; a password-protected PDF, a damaged or truncated one, or a structurally invalid
// one (a circular page tree) fails with a clear error. Time and memory are bounded by the
// worker thread this runs on (services/files.ts), since a content stream can be a flate bomb.
import { getDocumentProxy } from 'unpdf';

export class PdfError extends Error {
  readonly problem: 'password' | 'damaged' | 'limit';
  constructor(problem: PdfError['problem'], message: string) {
    super(message);
    this.name = 'PdfError';
    this.problem = problem;
  }
}

export interface PdfText {
  readonly text: string;
  readonly pages: number;
}

interface TextItemLike {
  readonly str?: string;
  readonly hasEOL?: boolean;
}

function classify(error: unknown): PdfError {
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException') return new PdfError('password', 'the PDF is password-protected; remove the password and send it again');
  return new PdfError('damaged', 'the PDF is damaged, truncated or structurally invalid');
}

/** Pages are separated by a blank line in the extracted text. */
export const PAGE_SEPARATOR = '\n\n';

/** PDF.js takes ownership of `bytes` (the buffer may be detached afterwards): pass a copy to keep it. */
export async function extractPdfText(bytes: Uint8Array, maxChars: number): Promise<PdfText> {
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    document = await getDocumentProxy(bytes, {
      verbosity: 0,
      // (isEvalSupported is gone: the PDF.js in unpdf 1.8 never evaluates code from a font.)
      useSystemFonts: false,
      disableFontFace: true,
      // No network, ever: no font, CMap or standard-font fetches.
      disableAutoFetch: true,
      disableStream: true,
      stopAtErrors: false,
    });
  } catch (error) {
    throw classify(error);
  }
  try {
    const pages: string[] = [];
    let length = 0;
    for (let number = 1; number <= document.numPages; number += 1) {
      let items: readonly TextItemLike[];
      try {
        const page = await document.getPage(number);
        items = (await page.getTextContent()).items as readonly TextItemLike[];
        page.cleanup();
      } catch (error) {
        throw classify(error);
      }
      const text = items.map((item) => (item.str ?? '') + (item.hasEOL === true ? '\n' : '')).join('').trimEnd();
      length += text.length + PAGE_SEPARATOR.length;
      if (length > maxChars) throw new PdfError('limit', 'the PDF yields more text than the limit');
      pages.push(text);
    }
    return { text: pages.join(PAGE_SEPARATOR), pages: document.numPages };
  } finally {
    await document.loadingTask.destroy();
  }
}
