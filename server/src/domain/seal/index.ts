// Sealed session state building block: the key ring and seal/open of session_state blobs.
// Pure: node:crypto and node:zlib only, no framework, no I/O.
export { KeyRing, KID_PATTERN, SESSION_SECRET_BYTES } from './keyring.js';
export { SESSION_KINDS, MAX_SESSION_BLOB_CHARS, newSessionId, sealSession, openSession } from './session.js';
export type { SessionKind, SessionPayload, OpenExpectation } from './session.js';
