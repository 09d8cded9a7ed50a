// Policy engine entry point: compiled policies, decisions and restore-mode resolution.
export { CompiledPolicy, DEFAULT_RULE_NAME, modeRank, tightest } from './engine.js';
export type { Caller, Decision, ResolveRestoreModeArgs } from './engine.js';
