// Policy files: types, published schema, parser/validator, directory loader and the built-in
// default policy. Shared by the server (load, reload, evaluate) and the operator (CRD checks).
export * from './types.js';
export * from './schema.js';
export * from './modes.js';
export * from './entity-types.js';
export * from './patterns.js';
export { parsePolicy, formatPolicyIssue, formatFieldPath, checkRestoreStrategy } from './parse.js';
export type { PathSegment, FieldProblem } from './parse.js';
export { isPolicyFileName, loadPolicyDirectory, MAX_POLICY_FILE_BYTES, parsePolicyFiles, type PolicyFileText } from './load.js';
export { DEFAULT_POLICY } from './default.js';
