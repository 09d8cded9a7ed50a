// Output guard wiring (`output_protection`, issue 7): configuration to settings, and the guard
// for one rehydrate: which detections count and how the model output is scanned. The guard
// itself is pure (domain/guard/output.ts) and also runs inside the rehydrate on worker threads.
//
// What counts as a raw value the model produced:
//   - a detection of the built-in detectors, the session policy's custom patterns (NER is not
//     run on output) or the guard's labelled values (domain/guard/labelled.ts) at confidence 0.5
//     or more (the detect route's default threshold), outside every token, that the guard flags
//     for its type's risk and context in the configured mode (domain/guard/risk.ts: critical and
//     high always, medium in strict mode with personal context, low never, with per-type
//     refinements for e-mail, phone, IP address, URL, date and credentials);
//   - every value of the session's own token map the model wrote raw, in any spelling the
//     normalization treats as equal (domain/guard/known.ts), in both modes;
//   - all of it on the folded view of the output (domain/guard/view.ts: full-width digits,
//     digits of every script, Unicode dashes), with spans mapped back to the original text;
//   - never a type in `exempt_types`;
//   - never a detected value the session's policy would `allow` through raw (decided with the
//     rehydrate caller's role and purpose and the default destination `external_llm`): the model
//     was allowed to see such values, so repeating them is not a leak.
//
// For other pipelines (RAG answer): createOutputGuard with outputProtectionSettings(deps.config),
// guard.guard(text) before restoring, guard.summary() in the response, and record
// `output_guard: summary.triggered` with auditFacts (veil_output_guard_triggers_total follows it).
import type { VeilConfig } from '../config/index.js';
import { detectAll } from '../domain/detect/index.js';
import { regionForLanguage } from '../domain/detect/phone.js';
import { flagsByRisk, KnownValues, labelledValues, OutputGuard, type OutputGuardAction } from '../domain/guard/index.js';
import type { Caller } from '../domain/policy/index.js';
import { findTokensLenient } from '../domain/repair/index.js';
import type { Detection, TokenEntry } from '../domain/types.js';
import type { LoadedPolicy } from './policies.js';

export type { OutputGuardSummary } from '../domain/guard/index.js';

export interface OutputProtectionSettings {
  readonly mode: 'strict' | 'permissive';
  readonly action: OutputGuardAction;
  readonly exemptTypes: readonly string[];
  /** detector.default_region (national phone numbers in the output). */
  readonly defaultRegion: string;
}

/** Lowest confidence at which a detection in model output counts. */
export const OUTPUT_GUARD_MIN_CONFIDENCE = 0.5;

/** Destination assumed when deciding whether the policy allowed a type through raw. */
const GUARD_DESTINATION = 'external_llm';

/** The settings when the output guard is enabled, else undefined. */
export function outputProtectionSettings(config: Pick<VeilConfig, 'output_protection' | 'detector'>): OutputProtectionSettings | undefined {
  const section = config.output_protection;
  if (!section.enabled) return undefined;
  return { mode: section.mode, action: section.default_action, exemptTypes: [...section.exempt_types], defaultRegion: config.detector.default_region };
}

export interface OutputGuardContext {
  /** The session's policy. */
  readonly policy: LoadedPolicy;
  /** The session's language (detector context words). */
  readonly language: string;
  /** The rehydrate caller. */
  readonly caller: Caller;
  /** The session's token map: its values are masked wherever the model writes them raw. */
  readonly entries?: readonly TokenEntry[] | undefined;
}

/** The guard for one rehydrate request (one text, a JSON document, or a stream). */
export function createOutputGuard(settings: OutputProtectionSettings, context: OutputGuardContext): OutputGuard {
  const exempt = new Set(settings.exemptTypes);
  const compiled = context.policy.compiled;
  const decisionContext = {
    destination: GUARD_DESTINATION,
    ...(context.caller.role !== undefined ? { caller_role: context.caller.role } : {}),
    ...(context.caller.purpose !== undefined ? { caller_purpose: context.caller.purpose } : {}),
  };
  // Session values compare in the region their national phone numbers were read in.
  const region = regionForLanguage(context.language, settings.defaultRegion);
  const known = new KnownValues((context.entries ?? []).filter((entry) => !exempt.has(entry.type)), region);
  const counts = (detection: Detection, text: string): boolean => {
    if (exempt.has(detection.type)) return false;
    if (known.has(detection.type, detection.value)) return true;
    if (detection.confidence < OUTPUT_GUARD_MIN_CONFIDENCE) return false;
    const decision = compiled.decide(detection.type, decisionContext, detection.value);
    if (decision.action === 'allow') return false;
    return flagsByRisk(detection, text, decision.protection_level, settings.mode);
  };
  const patterns = context.policy.patterns;
  return new OutputGuard({
    action: settings.action,
    detect: (text) => [
      ...detectAll(text, { customPatterns: patterns, language: context.language, defaultRegion: settings.defaultRegion }),
      ...labelledValues(text),
    ],
    counts,
    scan: findTokensLenient,
    known: known.empty ? undefined : known,
  });
}
