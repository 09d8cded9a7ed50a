// The service's fixed vocabularies: protection levels, restore modes, policy actions and
// built-in output channels. Shared by the policy schema, the server and the operator.

/** Protection levels, least to most sensitive. */
export const PROTECTION_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type ProtectionLevel = (typeof PROTECTION_LEVELS)[number];

/** Restore modes (interface.md 2.8). */
export const RESTORE_MODES = ['full', 'partial', 'masked', 'formatted', 'abstract', 'none'] as const;
export type RestoreMode = (typeof RESTORE_MODES)[number];

/** Policy actions (decisions.md section 7). */
export const POLICY_ACTIONS = ['tokenize', 'redact', 'allow', 'deny'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

/** Built-in output channels (interface.md 2.9). */
export const BUILTIN_CHANNELS = [
  'user_output',
  'internal_summary',
  'customer_email',
  'tool_payload',
  'export',
  'log_safe',
] as const;
export type BuiltinChannel = (typeof BUILTIN_CHANNELS)[number];

/** Custom channel and destination labels. */
export const LABEL_PATTERN = /^[a-z0-9_-]+$/;
