// Overlap resolution: detections from every detector are merged into one list with no two spans
// overlapping. Within each group of transitively overlapping candidates, the higher confidence
// wins, then the longer span, then the earlier start. Groups are found with one sort and a sweep,
// so the common case (no overlaps) is O(n log n) with no extra work per detection.
import type { Detection } from '../types.js';

function byPriority(a: Detection, b: Detection): number {
  return b.confidence - a.confidence || b.end - b.start - (a.end - a.start) || a.start - b.start;
}

/** Greedy by priority inside one cluster spanning [from, to). */
function resolveCluster(cluster: Detection[], from: number, to: number, out: Detection[]): void {
  cluster.sort(byPriority);
  const accepted: Detection[] = [];
  if (cluster.length <= 16) {
    for (const candidate of cluster) {
      let free = true;
      for (const kept of accepted) {
        if (candidate.start < kept.end && kept.start < candidate.end) {
          free = false;
          break;
        }
      }
      if (free) accepted.push(candidate);
    }
  } else {
    // Large clusters (adversarial input): an occupancy map over the cluster's span keeps each
    // check proportional to the candidate's length instead of the number already accepted.
    const taken = new Uint8Array(to - from);
    for (const candidate of cluster) {
      let free = true;
      for (let k = candidate.start - from; k < candidate.end - from; k++) {
        if (taken[k] === 1) {
          free = false;
          break;
        }
      }
      if (!free) continue;
      taken.fill(1, candidate.start - from, candidate.end - from);
      accepted.push(candidate);
    }
  }
  accepted.sort((a, b) => a.start - b.start);
  for (const detection of accepted) out.push(detection);
}

/** Sorted by start, non-overlapping. Empty spans are dropped. */
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
