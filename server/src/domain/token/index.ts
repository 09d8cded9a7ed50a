// Token building block: grammar (render, parse, scan), normalization, random-scheme allocation,
// corpus-scheme derivation and constant-time cap comparison. Pure: no framework, no I/O.
export {
  renderToken,
  parseToken,
  findTokens,
  isValidToken,
  isValidTokenType,
  isRandomId,
  isCorpusId,
  capMatchesScheme,
  MAX_CANDIDATE_INNER,
  RANDOM_CAP_LENGTH,
  CORPUS_CAP_LENGTH,
  CORPUS_ID_SUFFIX_LENGTH,
  MAX_RANDOM_COUNTER,
} from './grammar.js';
export type { TokenCandidate } from './grammar.js';
export { encodedInnerValues, legacyNormalizeValue, normalizeValue, revocationForms, revokeForms } from './normalize.js';
export { TokenAllocator } from './allocator.js';
export type { Allocation, RandomSource, ValueAllocator } from './allocator.js';
export { deriveCorpusKeys, corpusToken, CorpusAllocator, isCorpusEntryOwned } from './corpus.js';
export type { CorpusKeys, CorpusScope } from './corpus.js';
export { capsEqual } from './caps.js';
