// Structured input building block (interface.md 4.1 JSON and chat rules): bounds, JSON and chat
// walkers that tokenize every text-bearing slot through one allocator, JSON Pointer paths, and
// a structure-aware restore of tokenized documents.
export { STRUCTURED_LIMITS, StructuredBudget, isPlainObject } from './limits.js';
export type { StructuredLimits } from './limits.js';
export { escapePointerSegment, childPointer } from './pointer.js';
export { SlotScanner, slotEntities, NUMBER_MIN_CONFIDENCE } from './slots.js';
export type { SlotScan, SlotScannerOptions, StructuredEntity } from './slots.js';
export { checkJsonDocument, tokenizeJsonDocument } from './json.js';
export type { JsonWalkOptions, StructuredResult } from './json.js';
export { carriesText, prepareChatMessages, tokenizeChatMessages, CHAT_PATH_ROOT } from './chat.js';
export type { PreparedChat } from './chat.js';
export { restoreJsonValue } from './restore.js';
export type { JsonRestoreResult, TextRestore } from './restore.js';
