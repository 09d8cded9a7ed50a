// The classification lattice of /v1/rag/context (interface.md 4.12, config
// rag.classification_levels): an ordered list of labels, least restrictive first. access_level
// admits a chunk whose classification ranks at or below it. A chunk's classification is the
// most restrictive of what the caller labels it (chunk_classifications) and what its sealed
// chunk_session_state says, so a permissive label never lowers a sealed one. An unknown label,
// a missing label and an unclassified sealed chunk all rank as the most restrictive level
// (interface.md: "unknown label ranks most restrictive"; "missing entry is most restrictive").
//
// A caller's clearance (the access level it may read up to) comes from its credential outside dev
// mode; a request's access_level can only lower it, and a credential without one gets the lowest
// level (clearanceRank). So leaving access_level out of a request never widens what is admitted.
import { VeilError } from '@veil/common';
import type { SessionPayload } from '../seal/index.js';

export const DEFAULT_CLASSIFICATION_LEVELS = ['public', 'internal', 'confidential', 'restricted'] as const;

export class ClassificationLattice {
  readonly levels: readonly string[];
  readonly #rank: ReadonlyMap<string, number>;

  constructor(levels: readonly string[]) {
    if (levels.length === 0) throw new Error('ClassificationLattice: at least one level is required');
    this.levels = [...levels];
    this.#rank = new Map(levels.map((level, index) => [level, index]));
  }

  has(label: string): boolean {
    return this.#rank.has(label);
  }

  /** Rank of a label; unknown or absent labels rank as the most restrictive level. */
  rank(label: string | undefined): number {
    const rank = label === undefined ? undefined : this.#rank.get(label);
    return rank ?? this.levels.length - 1;
  }

  /**
   * Rank of an access_level. Unlike a chunk label, an unknown access level is refused: treating
   * it as "most restrictive" would admit every chunk, and as "least" would hide a typo.
   */
  accessRank(accessLevel: string): number {
    const rank = this.#rank.get(accessLevel);
    if (rank === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'access_level: must be one of rag.classification_levels');
    return rank;
  }

  /** The most restrictive rank (the top of the list). */
  get topRank(): number {
    return this.levels.length - 1;
  }

  /** The label of a rank (clamped to the list). */
  label(rank: number): string {
    return this.levels[Math.max(0, Math.min(rank, this.levels.length - 1))]!;
  }

  /**
   * A caller's clearance rank: `unrestricted` (dev mode) is the top; otherwise the credential's
   * level, where an absent or unknown level is the lowest (least privilege). A requested
   * access_level (refused when unknown) can only lower it.
   */
  clearanceRank(caller: { readonly unrestricted: boolean; readonly credential?: string | undefined }, requested: string | undefined): number {
    const known = caller.credential === undefined ? undefined : this.#rank.get(caller.credential);
    const ceiling = caller.unrestricted ? this.topRank : (known ?? 0);
    return requested === undefined ? ceiling : Math.min(ceiling, this.accessRank(requested));
  }

  /** The effective rank of a chunk: the most restrictive of every label that applies to it. */
  effectiveRank(labels: readonly (string | undefined)[]): number {
    let rank = 0;
    for (const label of labels) rank = Math.max(rank, this.rank(label));
    return rank;
  }
}

/** Lower the rank recorded for token `id` to `rank` (a value keeps its least classified source). */
export function lowerRank(ranks: Map<string, number>, id: string, rank: number): void {
  ranks.set(id, Math.min(ranks.get(id) ?? rank, rank));
}

/** What a caller may see of a RAG context session: its levels and the caller's clearance rank. */
export interface Clearance {
  readonly levels: readonly string[];
  readonly rank: number;
}

/**
 * `session` as a caller of `clearance` may restore it: every entry classified above the
 * clearance is pinned to restore mode `none` ([REDACTED]); an entry without a classification
 * ranks as the most restrictive. The same on the event loop and on a worker.
 */
export function withinClearance(session: SessionPayload, clearance: Clearance): SessionPayload {
  const levels = new ClassificationLattice(clearance.levels);
  return {
    ...session,
    entries: session.entries.map((entry) => (levels.rank(entry.classification) > clearance.rank ? { ...entry, override: 'none' } : entry)),
  };
}
