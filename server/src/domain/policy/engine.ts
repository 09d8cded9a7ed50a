// The policy engine: one validated policy compiled for fast, pure evaluation. Decides the action
// for each detected value (first match wins), and resolves the restore mode of a token at
// rehydrate from the policy floor, the caller-dependent rules re-decided for the rehydrating
// caller, caller-gated overrides, request tightenings and the output channel's safe-sink
// ceiling. value_pattern regexes run on the linear-time engine (detect/linear-regex.ts, RE2
// semantics), so a policy pattern cannot backtrack catastrophically on a hostile value.
import {
  BUILTIN_CHANNEL_CEILINGS,
  canonicalEntityType,
  DEFAULT_URL_RESTORE_MODE,
  isBuiltinChannel,
  LABEL_PATTERN,
  modeRank,
  parsePatternSource,
  tightest,
  VeilError,
  type Policy,
  type PolicyAction,
  type PolicyRule,
  type ProtectionLevel,
  type RestoreMode,
  type RestoreModeOverride,
  type RestoreStrategy,
} from '@veil/common';
import { CUSTOM_PROTECTION_LEVEL, entityInfo } from '../catalog.js';
import { foldText } from '../text/fold.js';
import { LinearRegex } from '../detect/linear-regex.js';
import type { RequestContext } from '../types.js';

export { modeRank, tightest } from '@veil/common';

/** The outcome of the policy for one entity (interface.md 2.6). */
export interface Decision {
  entity_type: string;
  action: PolicyAction;
  protection_level: ProtectionLevel;
  /** Name of the rule that decided, or `default` when none matched. */
  rule_matched: string;
  /** Restore floor stored with the token: the rule's mode for tokenize (default full), `full` for allow, `none` for redact and deny. */
  restore_mode: RestoreMode;
  restore_strategy?: string;
  reason?: string;
}

/** The authenticated caller of a rehydrate (or evaluate-policy) request. */
export interface Caller {
  role?: string;
  purpose?: string;
}

/** The destination a request without one is evaluated for (so deny rules cannot be skipped). */
export const DEFAULT_DESTINATION = 'external_llm';

/** What the policy's decision for a caller allows back: tokenize its mode, allow all, redact and deny nothing. */
export function decisionCeiling(decision: Decision): RestoreMode {
  return decision.action === 'tokenize' ? decision.restore_mode : decision.action === 'allow' ? 'full' : 'none';
}

/** One token at rehydrate: its sealed entry fields and the request around it. */
export interface ResolveRestoreArgs {
  readonly entry: {
    readonly type: string;
    readonly value: string;
    /** The floor sealed at transform. */
    readonly mode: RestoreMode;
    readonly strategy?: string | undefined;
    /** Transform protection_overrides tightening. */
    readonly override?: RestoreMode | undefined;
    /** The transform destination; absent means DEFAULT_DESTINATION. */
    readonly destination?: string | undefined;
  };
  readonly caller: Caller;
  readonly requested?: RestoreMode | undefined;
  readonly tokenOverride?: RestoreMode | undefined;
  readonly channel: string;
  /** The token sits inside a URL, a link target or an HTML tag (domain/restore/markup-context.ts). */
  readonly inMarkup?: boolean | undefined;
}

export interface ResolvedRestore {
  readonly mode: RestoreMode;
  /** The restore strategy to use when `mode` is partial (undefined: the per-type default). */
  readonly strategy?: string | undefined;
}

export interface ResolveRestoreModeArgs {
  /** Entity type of the token. */
  type: string;
  /** Policy floor stored with the token at transform (TokenEntry.mode). */
  floor: RestoreMode;
  /** Transform protection_overrides tightening (TokenEntry.override). */
  sessionOverride?: RestoreMode;
  /** The rehydrate caller, for override_restore_mode. */
  caller: Caller;
  /** Rehydrate `restore_mode`. */
  requested?: RestoreMode;
  /** Rehydrate `restore_overrides[id]`. */
  tokenOverride?: RestoreMode;
  /** Output channel, already defaulted (`user_output`). */
  channel: string;
  /** Inside a URL, link target or HTML tag: the channel's url_restore_mode clamps too. */
  inMarkup?: boolean;
}

/** Name reported when no rule matched. */
export const DEFAULT_RULE_NAME = 'default';

const ACTION_SEVERITY: Readonly<Record<PolicyAction, number>> = { allow: 0, tokenize: 1, redact: 2, deny: 3 };

interface CompiledRule {
  readonly rule: PolicyRule;
  /** Canonical entity types the rule is limited to, if any. */
  readonly types?: ReadonlySet<string>;
  readonly valuePattern?: LinearRegex;
}

interface CompiledOverride {
  readonly override: RestoreModeOverride;
  readonly types?: ReadonlySet<string>;
}

function canonicalSet(types: readonly string[] | undefined): ReadonlySet<string> | undefined {
  return types === undefined ? undefined : new Set(types.map(canonicalEntityType));
}

function compilePattern(pattern: string, where: string): LinearRegex {
  const parsed = parsePatternSource(pattern);
  try {
    return LinearRegex.compile(parsed.source, { ignoreCase: parsed.ignoreCase });
  } catch {
    // parsePolicy already rejects what the engine cannot run; this guards hand-built Policy objects.
    throw new VeilError('VEIL_VALIDATION_FAILED', `${where}: unsupported regular expression`);
  }
}

export class CompiledPolicy {
  readonly name: string;
  readonly version: string;
  readonly policy: Policy;
  private readonly rules: readonly CompiledRule[];
  private readonly overrides: readonly CompiledOverride[];
  private readonly strategies: ReadonlyMap<string, RestoreStrategy>;
  private readonly channelRules: ReadonlyMap<string, RestoreMode>;
  private readonly urlCeilings: ReadonlyMap<string, RestoreMode>;
  /**
   * True when a rule matches on caller_role or caller_purpose: its decisions then depend on who
   * asks, and rehydrate re-decides them for the rehydrating caller (resolveRestore).
   */
  readonly callerDependent: boolean;

  /** Expects a policy that passed parsePolicy (or DEFAULT_POLICY); throws VeilError on a pattern the engine rejects. */
  constructor(policy: Policy) {
    this.policy = policy;
    this.name = policy.name;
    this.version = policy.version;
    this.rules = policy.rules.map((rule, index): CompiledRule => {
      const types = rule.match.entity_types ?? (rule.match.entity_type !== undefined ? [rule.match.entity_type] : undefined);
      const typeSet = canonicalSet(types);
      const pattern = rule.match.value_pattern;
      return {
        rule,
        ...(typeSet !== undefined ? { types: typeSet } : {}),
        ...(pattern !== undefined ? { valuePattern: compilePattern(pattern, `rules[${index}].match.value_pattern`) } : {}),
      };
    });
    this.overrides = (policy.override_restore_mode ?? []).map((override): CompiledOverride => {
      const typeSet = canonicalSet(override.entity_types);
      return { override, ...(typeSet !== undefined ? { types: typeSet } : {}) };
    });
    this.strategies = new Map(Object.entries(policy.restore_strategies ?? {}));
    this.channelRules = new Map(Object.entries(policy.channel_rules ?? {}).map(([channel, rule]) => [channel, rule.max_restore_mode]));
    this.urlCeilings = new Map(
      Object.entries(policy.channel_rules ?? {}).flatMap(([channel, rule]) => (rule.url_restore_mode !== undefined ? [[channel, rule.url_restore_mode] as const] : [])),
    );
    this.callerDependent = policy.rules.some((rule) => rule.match.caller_role !== undefined || rule.match.caller_purpose !== undefined);
  }

  /**
   * The decision for one entity. First match wins. Without a value, rules with a value_pattern
   * only "might match": the result is the most restrictive outcome among those rules and the
   * first rule without a value_pattern that matches (or the default), so a type-only evaluation
   * is never more permissive than any real value could get.
   */
  decide(entityType: string, context: RequestContext, value?: string): Decision {
    const type = canonicalEntityType(entityType);
    const level = entityInfo(type)?.protectionLevel ?? CUSTOM_PROTECTION_LEVEL;
    const candidates: CompiledRule[] = [];
    let settled = false;
    for (const compiled of this.rules) {
      if (!this.matchesContext(compiled, type, level, context)) continue;
      if (compiled.valuePattern !== undefined) {
        if (value === undefined) {
          candidates.push(compiled);
          continue;
        }
        // The value as written and as folded (full-width digits, Unicode dashes ...: see
        // domain/text/fold.ts), so a rule written for 078-05-1123 also fires on ０７８－０５－１１２３.
        if (!compiled.valuePattern.test(value)) {
          const folded = foldText(value);
          if (folded === value || !compiled.valuePattern.test(folded)) continue;
        }
      }
      candidates.push(compiled);
      settled = true;
      break;
    }

    const outcomes = candidates.map((compiled) => this.decisionFor(entityType, level, compiled.rule));
    if (!settled) outcomes.push(this.defaultDecision(entityType, level));
    let chosen = outcomes[0]!;
    for (const outcome of outcomes.slice(1)) {
      if (moreRestrictive(outcome, chosen)) chosen = outcome;
    }
    return chosen;
  }

  /**
   * Safe-sink ceiling of an output channel: the built-in ceiling, tightened by channel_rules;
   * a custom channel is `none` unless channel_rules names it.
   */
  channelCeiling(channel: string): RestoreMode {
    if (!LABEL_PATTERN.test(channel)) throw new VeilError('VEIL_VALIDATION_FAILED', 'output_channel: invalid channel name');
    const rule = this.channelRules.get(channel);
    if (isBuiltinChannel(channel)) {
      const builtin = BUILTIN_CHANNEL_CEILINGS[channel];
      return rule === undefined ? builtin : tightest(builtin, rule);
    }
    return rule ?? 'none';
  }

  /**
   * Ceiling inside a URL, link target or HTML tag on `channel`: the channel ceiling, tightened by
   * the channel rule's url_restore_mode (default abstract: the label, never the value).
   */
  markupCeiling(channel: string): RestoreMode {
    return tightest(this.channelCeiling(channel), this.urlCeilings.get(channel) ?? DEFAULT_URL_RESTORE_MODE);
  }

  /**
   * The restore mode of one token. Base is the policy floor; the first override_restore_mode
   * entry matching the rehydrate caller (and the type, when it lists entity_types) replaces it,
   * widening or tightening; then the transform's protection override, the requested mode and
   * the per-token override can only tighten; finally the channel ceiling clamps. Nothing else
   * ever widens.
   */
  resolveRestoreMode(args: ResolveRestoreModeArgs): RestoreMode {
    const ceiling = args.inMarkup === true ? this.markupCeiling(args.channel) : this.channelCeiling(args.channel);
    let mode = args.floor;
    const override = this.matchingOverride(canonicalEntityType(args.type), args.caller);
    if (override !== undefined) mode = override.restore_mode;
    if (args.sessionOverride !== undefined) mode = tightest(mode, args.sessionOverride);
    if (args.requested !== undefined) mode = tightest(mode, args.requested);
    if (args.tokenOverride !== undefined) mode = tightest(mode, args.tokenOverride);
    return tightest(mode, ceiling);
  }

  /**
   * The restore of one token at rehydrate (docs/policies.md "Restore modes and resolution"):
   *
   * 1. the floor sealed at transform (the transform caller's decision);
   * 2. when rules depend on the caller, the decision for the REHYDRATING caller (same type,
   *    value and transform destination) caps it: tokenize gives its restore_mode, allow full,
   *    redact and deny none. A transform by a more privileged caller therefore never carries its
   *    disclosure over to a less privileged rehydrating caller; rules never widen at rehydrate;
   * 3. then resolveRestoreMode's steps (caller-gated override, tighten-only knobs, channel, and
   *    inside a URL or markup the channel's url_restore_mode).
   *
   * Two partial modes with different strategies cannot be ordered: the result is masked.
   */
  resolveRestore(args: ResolveRestoreArgs): ResolvedRestore {
    const { entry } = args;
    let floor = entry.mode;
    let strategy = entry.strategy;
    if (this.callerDependent) {
      const context: RequestContext = {
        destination: entry.destination ?? DEFAULT_DESTINATION,
        ...(args.caller.role !== undefined ? { caller_role: args.caller.role } : {}),
        ...(args.caller.purpose !== undefined ? { caller_purpose: args.caller.purpose } : {}),
      };
      const decision = this.decide(entry.type, context, entry.value);
      const ceiling = decisionCeiling(decision);
      const tighter = tightest(floor, ceiling);
      if (tighter === 'partial') {
        // The strategies of whichever sides are partial; they must agree.
        const strategies = [...(floor === 'partial' ? [entry.strategy] : []), ...(ceiling === 'partial' ? [decision.restore_strategy] : [])];
        const agreed = strategies.every((name) => name === strategies[0]);
        floor = agreed ? 'partial' : 'masked';
        strategy = agreed ? strategies[0] : undefined;
      } else {
        floor = tighter;
      }
    }
    const mode = this.resolveRestoreMode({
      type: entry.type,
      floor,
      ...(entry.override !== undefined ? { sessionOverride: entry.override } : {}),
      caller: args.caller,
      ...(args.requested !== undefined ? { requested: args.requested } : {}),
      ...(args.tokenOverride !== undefined ? { tokenOverride: args.tokenOverride } : {}),
      channel: args.channel,
      ...(args.inMarkup === true ? { inMarkup: true } : {}),
    });
    // An override that applied picks its own mode; the sealed strategy stays the one it uses.
    const overridden = this.matchingOverride(canonicalEntityType(entry.type), args.caller) !== undefined;
    return { mode, strategy: overridden ? entry.strategy : strategy };
  }

  /** A named restore strategy of this policy. */
  strategy(name: string): RestoreStrategy | undefined {
    return this.strategies.get(name);
  }

  private matchesContext(compiled: CompiledRule, type: string, level: ProtectionLevel, context: RequestContext): boolean {
    const match = compiled.rule.match;
    if (compiled.types !== undefined && !compiled.types.has(type)) return false;
    if (match.destination !== undefined && match.destination !== context.destination) return false;
    if (match.protection_level !== undefined && match.protection_level !== level) return false;
    if (match.caller_role !== undefined && match.caller_role !== context.caller_role) return false;
    if (match.caller_purpose !== undefined && match.caller_purpose !== context.caller_purpose) return false;
    return true;
  }

  private matchingOverride(type: string, caller: Caller): RestoreModeOverride | undefined {
    for (const { override, types } of this.overrides) {
      if (override.caller_role === undefined && override.caller_purpose === undefined) continue; // never ungated
      if (override.caller_role !== undefined && override.caller_role !== caller.role) continue;
      if (override.caller_purpose !== undefined && override.caller_purpose !== caller.purpose) continue;
      if (types !== undefined && !types.has(type)) continue;
      return override;
    }
    return undefined;
  }

  private decisionFor(entityType: string, level: ProtectionLevel, rule: PolicyRule): Decision {
    const restoreMode: RestoreMode = rule.action === 'tokenize' ? (rule.restore_mode ?? 'full') : rule.action === 'allow' ? 'full' : 'none';
    return {
      entity_type: entityType,
      action: rule.action,
      protection_level: rule.protection_level ?? level,
      rule_matched: rule.name,
      restore_mode: restoreMode,
      ...(rule.action === 'tokenize' && rule.restore_strategy !== undefined ? { restore_strategy: rule.restore_strategy } : {}),
      ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
    };
  }

  private defaultDecision(entityType: string, level: ProtectionLevel): Decision {
    return { entity_type: entityType, action: 'tokenize', protection_level: level, rule_matched: DEFAULT_RULE_NAME, restore_mode: 'full' };
  }
}

/** deny > redact > tokenize > allow; for equal actions the less revealing restore mode. */
function moreRestrictive(candidate: Decision, current: Decision): boolean {
  const severity = ACTION_SEVERITY[candidate.action] - ACTION_SEVERITY[current.action];
  if (severity !== 0) return severity > 0;
  const reveal = modeRank(candidate.restore_mode) - modeRank(current.restore_mode);
  if (reveal !== 0) return reveal < 0;
  return candidate.restore_mode === 'formatted' && current.restore_mode === 'full';
}
