// The audit trail (interface.md 6.1): facts set by routes, one emitting plugin, the `log` and
// `file` sinks, and the verifier behind `veil audit verify`.
export { auditFacts, entityFacts, factSink, NO_FACTS, transformFacts, type AuditFacts, type FactSink } from './facts.js';
export { buildEvent, fingerprint, systemEvent, type AuditEvent } from './event.js';
export { AUDIT_LOGGER_NAME, LogAuditSink, type AuditSink } from './sink.js';
export { AuditOpenError, AuditUnavailableError, FileAuditSink, nodeAuditFs, type AuditFileSystem } from './file-sink.js';
export { auditStreamFailure, auditStreamStart, recordIntent, registerAudit, type AuditMode } from '../plugins/audit.js';
export { describeResult, verifyAuditFile, type VerifyResult } from './verify.js';
