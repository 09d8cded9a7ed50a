// The CEL validation rules (`x-kubernetes-validations`) the Veil CRDs use, built from a few
// templates, plus a JavaScript evaluator for exactly those templates. Kubernetes evaluates the
// rules itself; the evaluator exists so that validateAgainstCrd (and through it the operator's
// API simulator) enforces the same invariants offline. A rule string that matches no template
// cannot be evaluated and is reported as such, never silently accepted.

export interface CelRule {
  readonly rule: string;
  readonly message: string;
}

/** Evaluates one rule. `old` is undefined when there is no correlatable old value. */
export type CelEvaluator = (self: unknown, old: { readonly value: unknown } | undefined) => boolean;

export interface CompiledCelRule {
  /** Transition rules (they read oldSelf) only run on update, with a correlated old value. */
  readonly transition: boolean;
  readonly evaluate: CelEvaluator;
}

/** A CEL string literal (single quotes; backslash and quote escaped). */
function celString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function unCelString(literal: string): string {
  return literal.slice(1, -1).replace(/\\(.)/g, '$1');
}

const CEL_STRING = String.raw`'(?:[^'\\]|\\.)*'`;

// ---------------------------------------------------------------------------------------------
// Builders

/** The field may not change once set (a transition rule). */
export function immutableRule(message: string): CelRule {
  return { rule: 'self == oldSelf', message };
}

/** Every key of a map matches `pattern` (RE2 = JS with the u flag for the patterns used) and is at most `maxLength` code points. */
export function mapKeysRule(pattern: string, maxLength: number, message: string): CelRule {
  return { rule: `self.all(k, k.matches(${celString(pattern)}) && size(k) <= ${maxLength})`, message };
}

/** A duration string (Go syntax, as CEL's duration()) is at least `minimum`, written as a CEL duration literal like `1h`. */
export function minDurationRule(minimum: string, message: string): CelRule {
  return { rule: `duration(self) >= duration(${celString(minimum)})`, message };
}

/** Two fields of the object are equal (dotted paths from self). */
export function fieldsEqualRule(left: string, right: string, message: string): CelRule {
  return { rule: `self.${left} == self.${right}`, message };
}

// ---------------------------------------------------------------------------------------------
// Evaluation

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return aKeys.length === bKeys.length && aKeys.every((key) => Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

const GO_DURATION_UNITS: Readonly<Record<string, number>> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Seconds of a Go duration string (`1h30m`, `1.5h`, `-2m`, `0`), or undefined when CEL's duration() would fail. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0' || text === '+0' || text === '-0') return 0;
  const match = /^([-+]?)((?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)$/.exec(text);
  if (match === null) return undefined;
  let total = 0;
  for (const part of match[2]!.matchAll(/([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * GO_DURATION_UNITS[part[2]!]!;
  }
  return match[1] === '-' ? -total : total;
}

function lookup(value: unknown, path: string): { found: boolean; value: unknown } {
  let current = value;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, segment)) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[segment];
  }
  return { found: true, value: current };
}

/** Compile a rule produced by one of the builders above; undefined for any other rule. */
export function compileCelRule(rule: string): CompiledCelRule | undefined {
  if (rule === 'self == oldSelf') {
    return { transition: true, evaluate: (self, old) => old === undefined || deepEqual(self, old.value) };
  }
  const keys = new RegExp(`^self\\.all\\(k, k\\.matches\\((${CEL_STRING})\\) && size\\(k\\) <= ([0-9]+)\\)$`).exec(rule);
  if (keys !== null) {
    const pattern = new RegExp(unCelString(keys[1]!), 'u');
    const max = Number(keys[2]);
    return {
      transition: false,
      evaluate: (self) =>
        self !== null && typeof self === 'object' && !Array.isArray(self) && // CEL size() counts code points, as spreading a string does.
        // eslint-disable-next-line @typescript-eslint/no-misused-spread
        Object.keys(self).every((key) => pattern.test(key) && [...key].length <= max),
    };
  }
  const duration = new RegExp(`^duration\\(self\\) >= duration\\((${CEL_STRING})\\)$`).exec(rule);
  if (duration !== null) {
    const minimum = parseGoDuration(unCelString(duration[1]!));
    if (minimum === undefined) return undefined;
    return {
      transition: false,
      evaluate: (self) => {
        if (typeof self !== 'string') return false;
        const seconds = parseGoDuration(self);
        return seconds !== undefined && seconds >= minimum;
      },
    };
  }
  const equal = /^self\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*) == self\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/.exec(rule);
  if (equal !== null) {
    const [left, right] = [equal[1]!, equal[2]!];
    return {
      transition: false,
      evaluate: (self) => {
        // A missing field is a CEL evaluation error ("no such key"), which fails validation.
        const a = lookup(self, left);
        const b = lookup(self, right);
        return a.found && b.found && deepEqual(a.value, b.value);
      },
    };
  }
  return undefined;
}
