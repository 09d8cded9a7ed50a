// @veil/client: a typed client for the Veil tokenization API (docs/api.md). See README.md.
export { VeilClient } from './client.js';
export type {
  CallOptions,
  RehydrateStreamComplete,
  RehydrateStreamFrame,
  RestoreParams,
  TransformStreamComplete,
  TransformStreamFrame,
  VeilClientOptions,
} from './client.js';
export {
  AuthenticationError,
  ConnectionError,
  ContentRejectedError,
  DetectionError,
  ERROR_FAMILIES,
  IdempotencyError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  SessionError,
  StreamError,
  UnavailableError,
  UpstreamError,
  ValidationError,
  VeilError,
} from './errors.js';
export * from './generated/api.js';
