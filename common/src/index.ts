// @veil/common: the contract shared by the server and the operator.
export * from './errors.js';
export * from './vocabulary.js';
export * from './auth-scopes.js';
export * from './policy/index.js';
export * from './k8s/index.js';
