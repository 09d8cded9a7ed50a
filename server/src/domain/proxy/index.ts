// The OpenAI-compatible proxy's pure parts (docs/api.md, "OpenAI-compatible proxy"): which request
// fields are tokenized, passed or refused; restoring a completion whole or chunk by chunk; and
// reading the upstream's server-sent events.
export { CHAT_PASSTHROUGH_FIELDS, EMBEDDING_PASSTHROUGH_FIELDS, prepareChatRequest, prepareEmbeddingRequest } from './request.js';
export type { PreparedChatRequest, PreparedEmbeddingRequest } from './request.js';
export { ChunkRestorer, completionMembers, completionText, isUrlMember, jsonStringRestore, MAX_STREAM_INDEX, parseChunk, restoreCompletion, urlTarget } from './restore.js';
export type { CompletionRestorers, RestoreTotals } from './restore.js';
export { SseFormatError, SseParser } from './sse.js';
