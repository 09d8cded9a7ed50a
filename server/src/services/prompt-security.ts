// Prompt security wiring (`prompt_security`, issue 7): configuration to settings, screening a
// text against the session being continued, the pre-NER screen on the event loop, and the
// audit fact when it triggered. The scanner itself is pure
// (domain/guard/prompt.ts) and also runs inside the transform on worker threads.
//
// For other pipelines (RAG ingest and query): call screenPromptText with the settings from
// promptSecuritySettings(deps.config), use the returned text for detection, put the summary in
// the response, and record `prompt_security: summary.triggered` with auditFacts (the metrics
// counter veil_prompt_security_triggers_total is derived from that fact).
import type { VeilConfig } from '../config/index.js';
import { PromptGuard, promptSecurityWarning, scanPrompt, sessionTokenKeys, type PromptAction, type PromptSecuritySummary } from '../domain/guard/index.js';
import { openSession, type KeyRing } from '../domain/seal/index.js';
import type { TokenEntry } from '../domain/types.js';

export type { PromptSecuritySummary } from '../domain/guard/index.js';

export interface PromptSecuritySettings {
  readonly action: PromptAction;
}

/** The settings when prompt security is enabled, else undefined. */
export function promptSecuritySettings(config: Pick<VeilConfig, 'prompt_security'>): PromptSecuritySettings | undefined {
  return config.prompt_security.enabled ? { action: config.prompt_security.action } : undefined;
}

export interface ScreenedText {
  /** The text to detect on: cleaned under `strip`, unchanged otherwise. */
  readonly text: string;
  readonly summary: PromptSecuritySummary;
  /** A response warning when it triggered. */
  readonly warning?: string;
}

/**
 * Screen one input text. `sessionEntries` are the entries of the session being continued (its
 * own tokens are left alone). `field` names the input in a block error. Throws
 * VEIL_PROMPT_REJECTED under `block`.
 */
export function screenPromptText(settings: PromptSecuritySettings, text: string, field: string, sessionEntries: readonly TokenEntry[] = []): ScreenedText {
  const guard = new PromptGuard(settings.action, sessionEntries.length > 0 ? sessionTokenKeys(sessionEntries) : undefined);
  const cleaned = guard.screen(text, field);
  const summary = guard.summary();
  const warning = promptSecurityWarning(summary);
  return { text: cleaned, summary, ...(warning !== undefined ? { warning } : {}) };
}

/**
 * Screen before NER runs (the sidecar must see the cleaned text, or its spans would not match
 * it): on the event loop. The continued session is opened only when a token-shaped string was
 * found, to tell its own tokens apart; a blob that does not open fails as the transform would.
 */
export function screenBeforeNer(
  settings: PromptSecuritySettings,
  text: string,
  continued: { readonly keyRing: KeyRing; readonly sessionState: string | undefined; readonly tenant: string | null; readonly nowMs: number },
): ScreenedText {
  const findings = scanPrompt(text);
  let entries: readonly TokenEntry[] = [];
  if (continued.sessionState !== undefined && findings.some((finding) => finding.token !== undefined)) {
    entries = openSession(continued.keyRing, continued.sessionState, { kinds: ['transform'], tenant: continued.tenant }, Math.floor(continued.nowMs / 1000)).entries;
  }
  const guard = new PromptGuard(settings.action, entries.length > 0 ? sessionTokenKeys(entries) : undefined);
  const cleaned = guard.apply(text, findings, 'input');
  const summary = guard.summary();
  const warning = promptSecurityWarning(summary);
  return { text: cleaned, summary, ...(warning !== undefined ? { warning } : {}) };
}
