// Abuse guards on the model's input and output (issue 7): prompt security on transform input,
// the output guard on rehydrate output and streams. Pure building blocks; the services wire
// them to configuration, sessions and policies.
export { PromptGuard, scanPrompt, sessionTokenKey, sessionTokenKeys, promptSecurityWarning, STRIPPED_TOKEN_MARK, PROMPT_FINDING_KINDS } from './prompt.js';
export type { PromptAction, PromptFinding, PromptFindingKind, PromptSecuritySummary } from './prompt.js';
export {
  OutputGuard,
  StreamOutputGuard,
  blankTokens,
  guardJsonValue,
  maskLabel,
  outputGuardWarning,
  growingStart,
  OUTPUT_GUARD_MAX_HOLD,
} from './output.js';
export { KnownValues, MIN_KNOWN_CHARS } from './known.js';
export type { KnownEntry } from './known.js';
export { labelledValues } from './labelled.js';
export { flagsByRisk, isReservedIp, ruleForLevel } from './risk.js';
export type { GuardMode, GuardRule } from './risk.js';
export { guardView } from './view.js';
export type { GuardView } from './view.js';
export type { JsonScans, OutputFinding, OutputGuardAction, OutputGuardOptions, OutputGuardSummary, StreamRelease } from './output.js';
