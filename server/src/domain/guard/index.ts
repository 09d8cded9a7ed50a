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
  OUTPUT_GUARD_TAIL,
  OUTPUT_GUARD_MAX_HOLD,
} from './output.js';
export type { OutputFinding, OutputGuardAction, OutputGuardOptions, OutputGuardSummary, StreamRelease } from './output.js';
