// Overlap resolution: detections from every detector (built-in, custom patterns, NER) are merged
// into one sorted list with no two spans overlapping, and without leaving any part of a detected
// value raw. Within each group of transitively overlapping candidates:
//
//   - priority: a structured detection (built-in or custom pattern, at or above the default
//     reporting threshold) outranks an NER label on the characters they share, whatever the
//     model's confidence, because its span comes from a format and a check, not a guess (an
//     IPv6 address is never cut around a "person" the model saw inside it); then the higher
//     confidence, then the longer span, then the earlier start;
//   - coverage: candidates are placed in priority order; a candidate that overlaps one placed
//     span of its own type joins it (two readings of one value: "(351) 938 981 253" and
//     "938 981 253" are one phone number), any other keeps the parts that are still free
//     (trimmed of punctuation and spaces at the cut), so every letter and digit any detector
//     claimed ends up inside some output span.
//
// Groups are found with one sort and a sweep, so the common case (no overlaps) is O(n log n)
// with no extra work per detection; inside a group an occupancy map keeps placement linear in
// the lengths of the candidates.
import type { Detection } from '../types.js';

/** Below this a built-in or custom detection does not outrank an NER label (the detect route's default threshold). */
export const STRUCTURED_PRIORITY_FLOOR = 0.5;

function structured(detection: Detection): boolean {
  return detection.detector !== 'python_ner' && detection.confidence >= STRUCTURED_PRIORITY_FLOOR;
}

/** Negative when `a` goes first. */
export function byPriority(a: Detection, b: Detection): number {
  return (
    Number(structured(b)) - Number(structured(a)) ||
    b.confidence - a.confidence ||
    b.end - b.start - (a.end - a.start) ||
    a.start - b.start
  );
}

// A letter, digit or mark: what a fragment must hold to carry any part of a value.
const CONTENT = /[\p{L}\p{N}\p{M}]/u;

function isContent(value: string, index: number): boolean {
  const code = value.charCodeAt(index);
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122);
  // A lone surrogate half is never cut from its pair here (spans sit on code-point boundaries);
  // classify the pair by its code point.
  if (code >= 0xdc00 && code <= 0xdfff && index > 0) return isContentChar(String.fromCodePoint(value.codePointAt(index - 1)!));
  return isContentChar(String.fromCodePoint(value.codePointAt(index)!));
}

/**
 * Judged on the character's compatibility form, as the detectors see it on the folded view
 * (domain/text/fold.ts): a symbol that folds to letters (the square era name ㍿ is 株式会社) is
 * content, so a cut trims the same characters whichever view the spans are counted in.
 */
function isContentChar(char: string): boolean {
  return CONTENT.test(char) || CONTENT.test(char.normalize('NFKC'));
}

/**
 * The free run [from, to) of `candidate`, trimmed of non-content characters on the sides where
 * another span cut it; undefined when no letter or digit is left.
 */
function fragment(candidate: Detection, from: number, to: number): Detection | undefined {
  const value = candidate.value;
  let start = from;
  let end = to;
  if (start > candidate.start) while (start < end && !isContent(value, start - candidate.start)) start++;
  if (end < candidate.end) while (end > start && !isContent(value, end - 1 - candidate.start)) end--;
  let content = false;
  for (let k = start; k < end && !content; k++) content = isContent(value, k - candidate.start);
  if (!content) return undefined;
  return { ...candidate, start, end, value: value.slice(start - candidate.start, end - candidate.start) };
}

/** `a` and `b` overlap or touch: the value over both spans. */
function union(a: Detection, b: Detection): Detection {
  const [first, second] = a.start <= b.start ? [a, b] : [b, a];
  const value = second.end > first.end ? first.value + second.value.slice(first.end - second.start) : first.value;
  return { ...a, start: first.start, end: Math.max(first.end, second.end), value };
}

/** Place one cluster spanning [from, to) in priority order (see the header). */
function resolveCluster(cluster: Detection[], from: number, to: number, out: Detection[]): void {
  cluster.sort(byPriority);
  // owner[k]: index in `accepted` of the span holding position from + k, or -1.
  const owner = new Int32Array(to - from).fill(-1);
  const accepted: (Detection | undefined)[] = [];
  const place = (detection: Detection, index = accepted.length): void => {
    accepted[index] = detection;
    owner.fill(index, detection.start - from, detection.end - from);
  };
  for (const candidate of cluster) {
    const base = candidate.start - from;
    const length = candidate.end - candidate.start;
    let free = 0;
    let single = -2; // the one accepted span the candidate overlaps (-1: several)
    for (let k = 0; k < length; k++) {
      const holder = owner[base + k]!;
      if (holder < 0) free++;
      else if (single === -2 || single === holder) single = holder;
      else single = -1;
    }
    if (free === 0) continue;
    if (free === length) {
      place(candidate);
      continue;
    }
    // Two readings of one value of the same type ("(351) 938 981 253" and "938 981 253"): one
    // value over both spans, with the better reading's score.
    const holder = single >= 0 ? accepted[single] : undefined;
    if (holder?.type === candidate.type) {
      place(union(holder, candidate), single);
      continue;
    }
    // Otherwise keep each free run that still holds part of the value.
    let k = 0;
    while (k < length) {
      if (owner[base + k]! >= 0) {
        k++;
        continue;
      }
      const runStart = k;
      while (k < length && owner[base + k]! < 0) k++;
      const piece = fragment(candidate, candidate.start + runStart, candidate.start + k);
      if (piece !== undefined) place(piece);
    }
  }
  const placed = accepted.filter((detection): detection is Detection => detection !== undefined);
  placed.sort((a, b) => a.start - b.start);
  for (const detection of placed) out.push(detection);
}

/** Sorted by start, non-overlapping, covering every letter and digit of the input spans. Empty spans are dropped. */
export function resolveOverlaps(candidates: readonly Detection[]): Detection[] {
  const items = candidates.filter((candidate) => candidate.end > candidate.start);
  if (items.length <= 1) return items;
  items.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Detection[] = [];
  let k = 0;
  while (k < items.length) {
    const first = items[k]!;
    let clusterEnd = first.end;
    let j = k + 1;
    while (j < items.length && items[j]!.start < clusterEnd) {
      clusterEnd = Math.max(clusterEnd, items[j]!.end);
      j++;
    }
    if (j === k + 1) out.push(first);
    else resolveCluster(items.slice(k, j), first.start, clusterEnd, out);
    k = j;
  }
  return out;
}
