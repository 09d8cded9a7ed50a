// The NER detector seam: which detectors a request runs (request `detectors`, else
// detector.mode), calling the sidecar, and what happens when it fails. `advanced` (or a request
// for python_ner alone) needs NER and fails with VEIL_DETECTION_FAILED; `both` falls back to the
// regex detectors with a warning naming the cause and counts the degradation. A policy whose
// detection.required_for names an NER-only type never passes without NER (fail closed).
//
// What the sidecar is given (planNer): every text of the request (one for text mode, every string
// slot for JSON and chat) made well-formed (lone surrogates become U+FFFD, one code unit for one,
// so offsets are unchanged), cut into bounded pieces with overlapping context, packed into few
// calls (batch calls for many short slots) and sent with a bounded concurrency. The first failed
// call abandons the others and decides the outcome for the whole request.
import { VeilError, type Policy } from '@veil/common';
import { NerError, type NerClient, type NerFailureReason } from '../clients/ner.js';
import type { VeilConfig } from '../config/index.js';
import { codePointsToUtf16, replaceLoneSurrogates } from '../domain/text/codepoints.js';
import type { Detection } from '../domain/types.js';

/** Shown when a transform runs without the NER detector (person, organization and location go unseen). */
export const NER_DEGRADED_WARNING =
  'degraded detection coverage: the NER detector is not active, so person, organization and location names may pass through undetected';

/** What detection planning needs: the sidecar client (when configured), the detector settings and the degradation metric. */
export interface NerDeps {
  readonly config: Pick<VeilConfig, 'detector'>;
  readonly ner?: NerClient | undefined;
  readonly countNerDegraded: () => void;
}

export type DetectorName = 'builtin_regex' | 'python_ner';
export type DetectorModeLabel = 'builtin_regex' | 'builtin_and_ner' | 'python_ner';

/** Types only the NER detector finds. */
export const NER_ONLY_TYPES: ReadonlySet<string> = new Set(['person', 'organization', 'location']);

const NAMES_AT_RISK = 'so person, organization and location names may pass through undetected';

/** The response warning when NER was wanted but the sidecar failed: it names the cause. */
export function nerUnavailableWarning(error: NerError): string {
  return `degraded detection coverage: ${error.summary}, ${NAMES_AT_RISK}`;
}

/** Context each piece gets on both sides of the part it owns, in UTF-16 units. */
export const NER_PIECE_OVERLAP = 400;
/** Most texts in one batch call (the sidecar's default VEIL_NER_MAX_BATCH_ITEMS). */
export const NER_MAX_BATCH_ITEMS = 64;

/**
 * A piece of a text for the sidecar, in UTF-16 offsets of that text: the window [start, end) is
 * sent; only entities starting in [ownStart, ownEnd) are kept. Owned ranges tile the text; the
 * window adds up to NER_PIECE_OVERLAP units of context on each side, so a name at a cut is seen
 * whole by the piece owning its first character.
 */
export interface NerPiece {
  readonly start: number;
  readonly end: number;
  readonly ownStart: number;
  readonly ownEnd: number;
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x2028 || code === 0x2029 || code === 0x3000;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `at`, moved back by one when it would fall between the halves of a surrogate pair: a high
 * surrogate before it and a low one at it (a lone high surrogate before another pair is no pair).
 */
function notInsidePair(text: string, at: number): number {
  return at > 0 && at < text.length && isHighSurrogate(text.charCodeAt(at - 1)) && isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
}

/**
 * Where to end an owned range that must end in (from, limit]: after the last line break, else
 * after the last sentence end (`. `, `! `, `? `), else after the last whitespace of the second
 * half of the range; a hard cut (never inside a surrogate pair) only in a text without any.
 */
function cutPoint(text: string, from: number, limit: number): number {
  const floor = from + Math.floor((limit - from) / 2);
  let space = -1;
  let sentence = -1;
  for (let at = limit; at > floor; at -= 1) {
    const code = text.charCodeAt(at - 1);
    if (code === 0x0a) return at;
    if (!isWhitespace(code)) continue;
    if (space < 0) space = at;
    const before = text.charCodeAt(at - 2);
    if (sentence < 0 && (before === 0x2e || before === 0x21 || before === 0x3f)) sentence = at;
  }
  if (sentence > 0) return sentence;
  if (space > 0) return space;
  return notInsidePair(text, limit);
}

/**
 * Cut `text` into pieces whose windows hold at most `limit` UTF-16 units (so at most that many
 * code points, under the sidecar's VEIL_NER_MAX_TEXT_CHARS). A text within the limit is one piece.
 */
export function nerPieces(text: string, limit: number, overlap: number = NER_PIECE_OVERLAP): NerPiece[] {
  if (text.length === 0) return [];
  if (text.length <= limit) return [{ start: 0, end: text.length, ownStart: 0, ownEnd: text.length }];
  const context = Math.max(0, Math.min(overlap, Math.floor(limit / 4)));
  const owned = limit - 2 * context;
  const pieces: NerPiece[] = [];
  let ownStart = 0;
  while (ownStart < text.length) {
    const ownEnd = text.length - ownStart <= owned ? text.length : Math.max(ownStart + 1, cutPoint(text, ownStart, ownStart + owned));
    // The window starts at a word boundary when its left context has one (a cut word there could
    // only yield an entity starting before ownStart, which this piece does not keep anyway). Its
    // right context is never shortened: a name starting in the owned range must fit whole.
    let start = Math.max(0, ownStart - context);
    for (let at = start; at < ownStart; at += 1) {
      if (isWhitespace(text.charCodeAt(at))) {
        start = at + 1;
        break;
      }
    }
    const end = Math.min(text.length, ownEnd + context);
    // A window edge inside a surrogate pair moves inwards (start forwards, end backwards): the
    // window never grows past `limit`, and the owned range, cut outside pairs, stays inside it.
    const safeStart = notInsidePair(text, start) === start ? start : start + 1;
    pieces.push({ start: safeStart, end: notInsidePair(text, end), ownStart, ownEnd });
    ownStart = ownEnd;
  }
  return pieces;
}

export interface NerRunOptions {
  readonly language: string;
  readonly labels?: readonly string[] | undefined;
  /** Largest window per piece and total text per call, in UTF-16 units. */
  readonly pieceChars: number;
  /** Calls in flight at once for this request. */
  readonly concurrency: number;
}

export interface NerRunResult {
  /** Per input text, NER detections in UTF-16 offsets of that text, sorted by start. */
  readonly perText: Detection[][];
  readonly degraded: boolean;
}

interface Job {
  readonly textIndex: number;
  readonly piece: NerPiece;
  /** The window, well-formed. */
  readonly window: string;
}

/** Texts that cannot hold a name (empty, no letter at all) are not sent. */
const LETTER = /\p{L}/u;

/**
 * NER over several texts: well-formed pieces, packed into calls of at most `pieceChars` units and
 * NER_MAX_BATCH_ITEMS texts, at most `concurrency` calls in flight. Throws the first call's
 * NerError (the calls still running are abandoned).
 */
export async function runNer(client: Pick<NerClient, 'detect' | 'detectBatch'>, texts: readonly string[], options: NerRunOptions): Promise<NerRunResult> {
  const jobs: Job[] = [];
  texts.forEach((text, textIndex) => {
    if (!LETTER.test(text)) return;
    const clean = replaceLoneSurrogates(text);
    for (const piece of nerPieces(clean, options.pieceChars)) jobs.push({ textIndex, piece, window: clean.slice(piece.start, piece.end) });
  });
  const calls: Job[][] = [];
  let current: Job[] = [];
  let size = 0;
  for (const job of jobs) {
    if (current.length > 0 && (size + job.window.length > options.pieceChars || current.length >= NER_MAX_BATCH_ITEMS)) {
      calls.push(current);
      current = [];
      size = 0;
    }
    current.push(job);
    size += job.window.length;
  }
  if (current.length > 0) calls.push(current);

  const perText: Detection[][] = texts.map(() => []);
  let degraded = false;
  const abandon = new AbortController();
  let failure: Error | undefined;
  let next = 0;
  const request = { language: options.language, ...(options.labels !== undefined ? { labels: options.labels } : {}) };
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < calls.length) {
      const call = calls[next]!;
      next += 1;
      try {
        const results =
          call.length === 1
            ? [await client.detect(call[0]!.window, { ...request, signal: abandon.signal })]
            : await client.detectBatch(
                call.map((job) => ({ text: job.window, ...request })),
                { signal: abandon.signal },
              );
        results.forEach((result, index) => {
          const job = call[index]!;
          degraded ||= result.degraded;
          collect(perText[job.textIndex]!, texts[job.textIndex]!, job, result.entities);
        });
      } catch (error) {
        if (failure === undefined) {
          failure = error instanceof Error ? error : new Error('ner call failed');
          abandon.abort();
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, options.concurrency), calls.length) }, worker));
  if (failure !== undefined) throw failure;
  for (const detections of perText) detections.sort((a, b) => a.start - b.start || b.end - a.end);
  return { perText, degraded };
}

/** Map a piece's entities (code points of its window) to the text, keeping those it owns. */
function collect(into: Detection[], text: string, job: Job, entities: readonly { type: string; start: number; end: number; confidence: number }[]): void {
  const flat: number[] = [];
  for (const entity of entities) flat.push(entity.start, entity.end);
  const offsets = codePointsToUtf16(job.window, flat);
  entities.forEach((entity, index) => {
    const start = job.piece.start + offsets[index * 2]!;
    const end = job.piece.start + offsets[index * 2 + 1]!;
    if (start < job.piece.ownStart || start >= job.piece.ownEnd) return;
    // The value is the caller's text (a lone surrogate stays as sent; only the sidecar saw U+FFFD).
    into.push({ type: entity.type, start, end, value: text.slice(start, end), confidence: entity.confidence, detector: 'python_ner' });
  });
}

/** Why NER did not run although it was wanted (a fallback): carried so a later fail-closed check keeps the cause. */
export interface NerFailure {
  /** 502, or 504 for a timeout. */
  readonly status: number;
  /** The value-free detail (logs). */
  readonly detail: string;
}

export interface DetectorPlan {
  readonly useRegex: boolean;
  /** True when the NER detector answered for this text. */
  readonly nerRan: boolean;
  /** Set when NER was wanted and the sidecar failed (the plan fell back). */
  readonly nerFailure?: NerFailure;
  readonly ner: Detection[];
  readonly detectorMode: DetectorModeLabel;
  readonly warnings: string[];
  /** The detectors that actually ran. */
  readonly used: DetectorName[];
}

/** A plan for several texts (the string slots of a JSON or chat input): NER per text. */
export interface TextsPlan extends Omit<DetectorPlan, 'ner'> {
  /** Parallel to the texts planned for; empty lists when NER did not run. */
  readonly perText: Detection[][];
}

/** Where a plan logs why NER was unavailable (a request logger); fields never hold values. */
export interface NerLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Whether the NER sidecar will be called for a request naming `detectors` (planDetection's rule);
 * prompt security must then screen the text before it, since the sidecar's spans must match it.
 */
export function nerWillRun(deps: Pick<NerDeps, 'ner' | 'config'>, detectors: readonly string[] | undefined): boolean {
  return deps.ner !== undefined && (detectors?.includes('python_ner') ?? deps.config.detector.mode !== 'builtin');
}

function requestedDetectors(deps: NerDeps, requested: readonly DetectorName[] | undefined): DetectorName[] {
  if (requested !== undefined) return [...requested];
  return deps.config.detector.mode === 'builtin' ? ['builtin_regex'] : ['builtin_regex', 'python_ner'];
}

function requiredNerTypes(policy: Policy): string[] {
  const required = policy.detection?.required_for ?? [];
  return required.filter((type) => NER_ONLY_TYPES.has(type));
}

/**
 * Apply the effective policy's detection control to a plan: keep only NER entities of its
 * `ner_labels`, and refuse (fail closed) when it requires NER for a type and NER did not run.
 */
export function applyPolicyDetection(
  policy: Policy,
  plan: { readonly nerRan: boolean; readonly ner: readonly Detection[]; readonly nerFailure?: NerFailure | undefined },
): Detection[] {
  const required = requiredNerTypes(policy);
  if (required.length > 0 && !plan.nerRan) {
    // The sidecar's failure (a continuation's policy is only known here), with its status: 504 for a timeout.
    const failure = plan.nerFailure;
    throw new VeilError('VEIL_DETECTION_FAILED', `detection failed: the policy requires NER for ${required.join(', ')}`, failure?.detail, failure?.status);
  }
  const labels = policy.detection?.ner_labels;
  if (labels === undefined) return [...plan.ner];
  const allowed = new Set(labels);
  return plan.ner.filter((detection) => allowed.has(detection.type));
}

/**
 * Run the NER part of detection for several texts (if any) and decide the regex part. Regex
 * detection itself runs later, inside the (possibly offloaded) transform.
 */
export async function planDetectionForTexts(
  deps: NerDeps,
  texts: readonly string[],
  language: string,
  requested: readonly DetectorName[] | undefined,
  /** The policy named in the request, when known: its NER requirements decide fallback. */
  policy: Policy | undefined,
  log?: NerLog,
): Promise<TextsPlan> {
  const detectors = requestedDetectors(deps, requested);
  const useRegex = detectors.includes('builtin_regex');
  const wantsNer = detectors.includes('python_ner');
  const client = deps.ner;
  const none = (): Detection[][] => texts.map(() => []);
  if (wantsNer && client === undefined) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'detectors: python_ner is not available (no NER sidecar is configured)');
  }
  if (!wantsNer || client === undefined) {
    return { useRegex, nerRan: false, perText: none(), detectorMode: 'builtin_regex', warnings: [NER_DEGRADED_WARNING], used: ['builtin_regex'] };
  }
  const labels = policy?.detection?.ner_labels;
  try {
    const result = await runNer(client, texts, {
      language,
      labels,
      pieceChars: deps.config.detector.ner_piece_chars,
      concurrency: deps.config.detector.ner_concurrency,
    });
    const warnings = result.degraded ? ['degraded NER: the sidecar used a fallback model for this language'] : [];
    if (result.degraded) deps.countNerDegraded();
    return {
      useRegex,
      nerRan: true,
      perText: result.perText,
      detectorMode: useRegex ? 'builtin_and_ner' : 'python_ner',
      warnings,
      used: useRegex ? ['builtin_regex', 'python_ner'] : ['python_ner'],
    };
  } catch (error) {
    if (!(error instanceof NerError)) throw error;
    const nerRequired = deps.config.detector.mode === 'advanced' || !useRegex || (policy !== undefined && requiredNerTypes(policy).length > 0);
    log?.warn({ event: 'ner_unavailable', reason: error.reason satisfies NerFailureReason, detail: error.detail, fail_closed: nerRequired }, 'ner_unavailable');
    if (nerRequired) throw error;
    deps.countNerDegraded();
    return {
      useRegex,
      nerRan: false,
      nerFailure: { status: error.status, detail: error.detail ?? error.reason },
      perText: none(),
      detectorMode: 'builtin_regex',
      warnings: [nerUnavailableWarning(error)],
      used: ['builtin_regex'],
    };
  }
}

/** planDetectionForTexts for one text. */
export async function planDetection(
  deps: NerDeps,
  text: string,
  language: string,
  requested: readonly DetectorName[] | undefined,
  policy: Policy | undefined,
  log?: NerLog,
): Promise<DetectorPlan> {
  const { perText, ...plan } = await planDetectionForTexts(deps, [text], language, requested, policy, log);
  return { ...plan, ner: perText[0]! };
}
