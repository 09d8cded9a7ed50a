// Policy engine entry point: compiled policies, decisions and restore-mode resolution.
export { CompiledPolicy, DEFAULT_DESTINATION, DEFAULT_RULE_NAME, decisionCeiling, modeRank, tightest } from './engine.js';
export type { Caller, Decision, ResolvedRestore, ResolveRestoreArgs, ResolveRestoreModeArgs } from './engine.js';
