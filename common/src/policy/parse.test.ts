// parsePolicy: valid files load; every kind of error names the file, the line and the field;
// all errors are reported at once; semantic rules beyond the schema are enforced.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { BUILTIN_CHANNELS, RESTORE_MODES } from '../vocabulary.js';
import { DEFAULT_POLICY } from './default.js';
import { BUILTIN_CHANNEL_CEILINGS, modeRank } from './modes.js';
import { formatFieldPath, formatPolicyIssue, parsePolicy } from './parse.js';
import type { PolicyIssue } from './types.js';

/** The example of decisions.md section 7, verbatim. */
const DECISIONS_EXAMPLE = `name: support-desk            # [a-z0-9_-]+, unique in the directory
version: "3.1.0"              # reported as policy_version
description: optional text
rules:                        # first match wins; a rule with an empty match matches everything
  - name: deny-ssn-to-external
    match: {entity_type: us_ssn, destination: external_llm}   # also entity_types: [..],
    action: deny              # protection_level, caller_role, caller_purpose
  - name: card-last4
    match: {entity_type: credit_card}
    action: tokenize          # tokenize | redact | allow | deny
    protection_level: high    # low | medium | high | critical
    restore_mode: partial     # full | partial | masked | formatted | abstract | none
    restore_strategy: last4   # a name from restore_strategies
  - name: catch-all
    match: {}
    action: tokenize
    restore_mode: full
restore_strategies:
  last4: {kind: reveal_last_n, n: 4, mask_char: "*"}
channel_rules:                # ceilings for built-in channels may only tighten;
  partner_portal: {max_restore_mode: partial}   # a custom channel restores only if named here
override_restore_mode:        # re-resolved against the rehydrate caller
  - {caller_role: supervisor, caller_purpose: audit, entity_types: [email], restore_mode: full}
custom_patterns:
  - {entity_type: ticket_id, pattern: "TCK-[0-9]{6}", confidence: 0.95, context_words: [ticket]}
metadata_policy: {expose_gender: false, expose_formality: false, expose_language: true,
                  expose_role: false, expose_belongs_to: true, roles: [patient, customer]}
detection: {ner_labels: [person, organization, location], required_for: [person]}
`;

function issuesOf(text: string, file = 'test.yaml'): PolicyIssue[] {
  const result = parsePolicy(text, file);
  expect(result.policy).toBeUndefined();
  return result.issues;
}

function issueAt(issues: readonly PolicyIssue[], field: string): PolicyIssue {
  const issue = issues.find((candidate) => candidate.field === field);
  if (issue === undefined) throw new Error(`no issue for ${field}; got:\n${issues.map(formatPolicyIssue).join('\n')}`);
  return issue;
}

/** A minimal valid policy with extra YAML appended (top-level keys). */
function withBase(extra: string): string {
  return `name: p\nversion: "1"\nrules:\n  - name: all\n    match: {}\n    action: tokenize\n${extra}`;
}

describe('parsePolicy: valid files', () => {
  it('loads the decisions.md example', () => {
    const result = parsePolicy(DECISIONS_EXAMPLE, 'support-desk.yaml');
    expect(result.issues).toEqual([]);
    expect(result.policy?.name).toBe('support-desk');
    expect(result.policy?.version).toBe('3.1.0');
    expect(result.policy?.rules.map((rule) => rule.name)).toEqual(['deny-ssn-to-external', 'card-last4', 'catch-all']);
    expect(result.policy?.restore_strategies?.['last4']).toEqual({ kind: 'reveal_last_n', n: 4, mask_char: '*' });
  });

  it('returns a deep-frozen policy', () => {
    const policy = parsePolicy(DECISIONS_EXAMPLE, 'x.yaml').policy!;
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.rules[1])).toBe(true);
    expect(Object.isFrozen(policy.rules[1]?.match)).toBe(true);
  });

  it('accepts every strategy kind, custom: types, (?i) patterns and an empty rule list', () => {
    const text = `name: all-kinds
version: "1"
rules:
  - name: tickets
    match: {entity_types: [ticket_id, custom:from_request], value_pattern: '(?i)^tck-'}
    action: tokenize
    restore_mode: partial
    restore_strategy: first3
restore_strategies:
  last2: {kind: reveal_last_n, n: 2, mask_char: "#"}
  first3: {kind: reveal_first_n, n: 3}
  middle: {kind: reveal_range, start: 2, len: 3, mask_char: "x"}
  hide: {kind: mask}
  band:
    kind: bucket
    ranges:
      - {max: 0, label: negative}
      - {min: 0, max: 10, label: small}
      - {min: 10, label: large}
custom_patterns:
  - {entity_type: ticket_id, pattern: "TCK-[0-9]{6}"}
`;
    expect(parsePolicy(text, 'k.yaml').issues).toEqual([]);
    expect(parsePolicy('name: empty\nversion: "0"\nrules: []\n', 'e.yaml').issues).toEqual([]);
  });

  it('accepts DEFAULT_POLICY written as YAML', () => {
    expect(parsePolicy(stringify(DEFAULT_POLICY), 'default.yaml').issues).toEqual([]);
  });
});

describe('parsePolicy: schema errors name file, line and field', () => {
  it('reports YAML syntax errors with their line', () => {
    const issues = issuesOf('name: p\nversion: "1"\nrules: [\n  {name: a\n', 'broken.yaml');
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]).toMatchObject({ file: 'broken.yaml', field: '(yaml)' });
    expect(issues[0]?.line).toBeGreaterThanOrEqual(3);
  });

  it('reports duplicate keys and multiple documents as YAML errors', () => {
    expect(issueAt(issuesOf('name: a\nname: b\nversion: "1"\nrules: []\n'), '(yaml)').line).toBe(2);
    expect(issueAt(issuesOf('name: a\nversion: "1"\nrules: []\n---\nname: b\n'), '(yaml)').line).toBe(4);
  });

  it('rejects an empty file and a non-mapping root', () => {
    expect(issuesOf('')[0]).toMatchObject({ field: '(root)', message: 'must be a mapping' });
    expect(issuesOf('- a\n- b\n')[0]).toMatchObject({ field: '(root)', line: 1 });
  });

  it('rejects unknown keys at every level, naming the key line', () => {
    const text = `name: p
version: "1"
colour: red
rules:
  - name: a
    match:
      entity_typ: email
    action: tokenize
    priority: 3
restore_strategies:
  s: {kind: mask, n: 2}
channel_rules:
  partner: {max_restore_mode: partial, min_restore_mode: none}
override_restore_mode:
  - {caller_role: x, restore_mode: full, channel: y}
custom_patterns:
  - {entity_type: t, pattern: "T-[0-9]+", flags: i}
metadata_policy: {expose_age: true}
detection: {ner_model: big}
`;
    const issues = issuesOf(text, 'unknown.yaml');
    const expected: [string, number][] = [
      ['colour', 3],
      ['rules[0].match.entity_typ', 7],
      ['rules[0].priority', 9],
      ['restore_strategies.s.n', 11],
      ['channel_rules.partner.min_restore_mode', 13],
      ['override_restore_mode[0].channel', 15],
      ['custom_patterns[0].flags', 17],
      ['metadata_policy.expose_age', 18],
      ['detection.ner_model', 19],
    ];
    for (const [field, line] of expected) {
      const issue = issueAt(issues, field);
      expect(issue).toMatchObject({ file: 'unknown.yaml', line });
      expect(issue.message).toMatch(/^unknown key/);
    }
    expect(issueAt(issues, 'colour').message).toContain('allowed: name, version');
  });

  it('reports missing required fields at the line of their parent', () => {
    const text = `name: p
rules:
  - name: a
    action: tokenize
  - match: {}
    action: deny
`;
    const issues = issuesOf(text);
    expect(issueAt(issues, 'version')).toMatchObject({ line: 1, message: 'is required' });
    expect(issueAt(issues, 'rules[0].match')).toMatchObject({ line: 3, message: 'is required' });
    expect(issueAt(issues, 'rules[1].name')).toMatchObject({ line: 5, message: 'is required' });
  });

  it('reports enum, type and pattern errors at the value line', () => {
    const text = `name: Not Valid
version: 3.1
rules:
  - name: a
    match: {protection_level: severe}
    action: tokenise
    restore_mode: sometimes
  - name: b
    match: {entity_type: Email, destination: "external llm"}
    action: allow
    reason: 42
`;
    const issues = issuesOf(text, 'types.yaml');
    expect(issueAt(issues, 'name')).toMatchObject({ line: 1, message: 'must match [a-z0-9_-]+' });
    expect(issueAt(issues, 'version')).toMatchObject({ line: 2, message: 'must be a string (quote the value)' });
    expect(issueAt(issues, 'rules[0].match.protection_level')).toMatchObject({ line: 5, message: 'must be one of: low, medium, high, critical' });
    expect(issueAt(issues, 'rules[0].action')).toMatchObject({ line: 6, message: 'must be one of: tokenize, redact, allow, deny' });
    expect(issueAt(issues, 'rules[0].restore_mode')).toMatchObject({ line: 7 });
    expect(issueAt(issues, 'rules[1].match.entity_type')).toMatchObject({ line: 9 });
    expect(issueAt(issues, 'rules[1].match.entity_type').message).toMatch(/entity type name/);
    expect(issueAt(issues, 'rules[1].match.destination')).toMatchObject({ line: 9 });
    expect(issueAt(issues, 'rules[1].reason')).toMatchObject({ line: 11 });
  });

  it('reports every error at once', () => {
    const text = `name: p
version: "1"
rules:
  - {name: a, match: {}, action: nope}
  - {name: b, match: {}, action: nope}
  - {name: c, match: {}, action: nope}
`;
    const issues = issuesOf(text);
    expect(issues.map((issue) => [issue.field, issue.line])).toEqual([
      ['rules[0].action', 4],
      ['rules[1].action', 5],
      ['rules[2].action', 6],
    ]);
  });

  it('lists schema and semantic problems together, checking the schema-valid parts', () => {
    const text = `name: p
version: 1
rules:
  - {name: a, match: {entity_type: emial}, action: tokenize, restore_strategy: missing}
  - {name: b, match: {}, action: nope}
  - {name: default, match: {}, action: redact, restore_mode: full}
  - {name: d, match: {}, action: tokenize, restore_strategy: broken}
restore_strategies:
  broken: {kind: reveal_last_n}
custom_patterns:
  - {entity_type: email, pattern: "x"}
  - {entity_type: ticket, pattern: 3}
bogus: true
`;
    const issues = issuesOf(text);
    expect(issues.map((issue) => `${issue.line}: ${issue.field}: ${issue.message}`)).toEqual([
      '2: version: must be a string (quote the value)',
      '4: rules[0].restore_strategy: names no entry of restore_strategies',
      '4: rules[0].match.entity_type: is not a built-in type nor a custom_patterns type (write custom:<name> for types from request patterns)',
      '5: rules[1].action: must be one of: tokenize, redact, allow, deny',
      '6: rules[2].name: is reserved (reported when no rule matches)',
      '6: rules[2].restore_mode: only applies to action tokenize',
      '9: restore_strategies.broken.n: is required',
      '11: custom_patterns[0].entity_type: must not reuse a built-in type name',
      '12: custom_patterns[1].pattern: must be a string (quote the value)',
      '13: bogus: unknown key (allowed: name, version, description, rules, restore_strategies, channel_rules, override_restore_mode, custom_patterns, metadata_policy, detection)',
    ]);
  });

  it('names the policy of a file with problems, so duplicates are still found', () => {
    expect(parsePolicy('name: p\nversion: 1\nrules: []\n', 'a.yaml')).toMatchObject({ name: 'p', issues: [{ field: 'version' }] });
    expect(parsePolicy('name: 3\nversion: 1\nrules: []\n', 'a.yaml').name).toBeUndefined();
  });

  it('rejects invalid restore strategies', () => {
    const text = withBase(`restore_strategies:
  zero: {kind: reveal_last_n, n: 0}
  huge: {kind: reveal_first_n, n: 65}
  fraction: {kind: reveal_last_n, n: 2.5}
  nokind: {n: 3}
  badkind: {kind: reveal_middle}
  twochars: {kind: reveal_last_n, n: 4, mask_char: "**"}
  space: {kind: reveal_last_n, n: 4, mask_char: " "}
  range: {kind: reveal_range, start: -1}
  bucket: {kind: bucket, ranges: []}
  bucket2: {kind: bucket, ranges: [{min: 1}]}
  "Bad Name": {kind: mask}
`);
    const issues = issuesOf(text);
    const expected: [string, number, RegExp][] = [
      ['restore_strategies.zero.n', 8, />= 1/],
      ['restore_strategies.huge.n', 9, /<= 64/],
      ['restore_strategies.fraction.n', 10, /integer/],
      ['restore_strategies.nokind.kind', 11, /is required/],
      ['restore_strategies.badkind.kind', 12, /one of: reveal_last_n/],
      ['restore_strategies.twochars.mask_char', 13, /single visible character/],
      ['restore_strategies.space.mask_char', 14, /single visible character/],
      ['restore_strategies.range.start', 15, />= 0/],
      ['restore_strategies.range.len', 15, /is required/],
      ['restore_strategies.bucket.ranges', 16, /fewer than 1/],
      ['restore_strategies.bucket2.ranges[0].label', 17, /is required/],
      ['restore_strategies["Bad Name"]', 18, /key must match/],
    ];
    for (const [field, line, message] of expected) {
      const issue = issueAt(issues, field);
      expect(issue.line, field).toBe(line);
      expect(issue.message, field).toMatch(message);
    }
  });

  it('requires caller_role or caller_purpose on override_restore_mode entries', () => {
    const issues = issuesOf(withBase('override_restore_mode:\n  - {entity_types: [email], restore_mode: full}\n'));
    expect(issues).toEqual([{ file: 'test.yaml', line: 8, field: 'override_restore_mode[0]', message: 'must set caller_role, caller_purpose or both' }]);
  });

  it('rejects invalid channel names and custom pattern types', () => {
    const issues = issuesOf(
      withBase('channel_rules:\n  "Partner Portal": {max_restore_mode: partial}\ncustom_patterns:\n  - {entity_type: custom:x, pattern: "x+"}\n'),
    );
    expect(issueAt(issues, 'channel_rules["Partner Portal"]')).toMatchObject({ line: 8 });
    expect(issueAt(issues, 'custom_patterns[0].entity_type')).toMatchObject({ line: 10 });
  });
});

describe('parsePolicy: semantic checks', () => {
  it('rejects duplicate and reserved rule names', () => {
    const text = `name: p
version: "1"
rules:
  - {name: a, match: {}, action: tokenize}
  - {name: default, match: {}, action: tokenize}
  - {name: a, match: {}, action: tokenize}
`;
    const issues = issuesOf(text);
    expect(issueAt(issues, 'rules[1].name')).toMatchObject({ line: 5, message: 'is reserved (reported when no rule matches)' });
    expect(issueAt(issues, 'rules[2].name')).toMatchObject({ line: 6, message: 'duplicate rule name (first used by rules[0])' });
  });

  it('rejects references to undefined strategies and restore settings on non-tokenize rules', () => {
    const text = `name: p
version: "1"
rules:
  - name: a
    match: {entity_type: email}
    action: tokenize
    restore_strategy: missing
  - name: b
    match: {entity_type: phone}
    action: redact
    restore_mode: full
restore_strategies:
  constructor_like: {kind: mask}
`;
    const issues = issuesOf(text);
    expect(issueAt(issues, 'rules[0].restore_strategy')).toMatchObject({ line: 7, message: 'names no entry of restore_strategies' });
    expect(issueAt(issues, 'rules[1].restore_mode')).toMatchObject({ line: 11, message: 'only applies to action tokenize' });
  });

  it('does not resolve strategy names through the object prototype', () => {
    const issues = issuesOf(withBase('    restore_strategy: constructor\n'));
    expect(issueAt(issues, 'rules[0].restore_strategy').message).toBe('names no entry of restore_strategies');
  });

  it('rejects unknown entity types, both entity_type and entity_types, and custom: built-in names', () => {
    const text = `name: p
version: "1"
rules:
  - name: a
    match: {entity_type: emial}
    action: tokenize
  - name: b
    match: {entity_type: email, entity_types: [phone]}
    action: tokenize
  - name: c
    match: {entity_types: [phone, "custom:email"]}
    action: tokenize
override_restore_mode:
  - {caller_role: x, entity_types: [adress], restore_mode: full}
detection: {required_for: [persn]}
`;
    const issues = issuesOf(text);
    expect(issueAt(issues, 'rules[0].match.entity_type')).toMatchObject({ line: 5 });
    expect(issueAt(issues, 'rules[0].match.entity_type').message).toMatch(/not a built-in type/);
    expect(issueAt(issues, 'rules[1].match.entity_types')).toMatchObject({ line: 8, message: 'use entity_type or entity_types, not both' });
    expect(issueAt(issues, 'rules[2].match.entity_types[1]')).toMatchObject({ line: 11 });
    expect(issueAt(issues, 'override_restore_mode[0].entity_types[0]')).toMatchObject({ line: 14 });
    expect(issueAt(issues, 'detection.required_for[0]')).toMatchObject({ line: 15 });
  });

  it('checks value_pattern and custom pattern syntax', () => {
    const text = `name: p
version: "1"
rules:
  - name: a
    match: {value_pattern: "(?<=@)acme"}
    action: allow
  - name: b
    match: {value_pattern: "[unclosed"}
    action: allow
  - name: c
    match: {value_pattern: ".*"}
    action: allow
custom_patterns:
  - {entity_type: email, pattern: "x+"}
  - {entity_type: ticket, pattern: "(T)-\\\\1"}
  - {entity_type: anything, pattern: "[0-9]*"}
`;
    const issues = issuesOf(text);
    expect(issueAt(issues, 'rules[0].match.value_pattern')).toMatchObject({ line: 5, message: 'lookahead and lookbehind are not supported' });
    expect(issueAt(issues, 'rules[1].match.value_pattern')).toMatchObject({ line: 8, message: 'is not a valid regular expression' });
    expect(issues.find((issue) => issue.field === 'rules[2].match.value_pattern')).toBeUndefined();
    expect(issueAt(issues, 'custom_patterns[0].entity_type')).toMatchObject({ line: 14, message: 'must not reuse a built-in type name' });
    expect(issueAt(issues, 'custom_patterns[1].pattern')).toMatchObject({ line: 15, message: 'backreferences are not supported' });
    expect(issueAt(issues, 'custom_patterns[2].pattern')).toMatchObject({ line: 16, message: 'must not match the empty string' });
  });

  it('checks bucket ranges: ascending, non-overlapping, bounded in the middle, min below max, finite', () => {
    const text = withBase(`restore_strategies:
  overlap:
    kind: bucket
    ranges:
      - {max: 10, label: a}
      - {min: 5, max: 20, label: b}
  unordered:
    kind: bucket
    ranges:
      - {min: 10, max: 5, label: a}
  open_middle:
    kind: bucket
    ranges:
      - {max: 10, label: a}
      - {label: b}
      - {min: 20, label: c}
`);
    const issues = issuesOf(text);
    expect(issueAt(issues, 'restore_strategies.overlap.ranges[1].min')).toMatchObject({ line: 12 });
    expect(issueAt(issues, 'restore_strategies.overlap.ranges[1].min').message).toMatch(/must not overlap/);
    expect(issueAt(issues, 'restore_strategies.unordered.ranges[0].max')).toMatchObject({ line: 16, message: 'must be greater than min' });
    expect(issueAt(issues, 'restore_strategies.open_middle.ranges[1].min').message).toMatch(/only the first range/);
    expect(issueAt(issues, 'restore_strategies.open_middle.ranges[1].max').message).toMatch(/only the last range/);
    const infinite = issuesOf(withBase('restore_strategies:\n  inf: {kind: bucket, ranges: [{min: 0, max: .inf, label: a}]}\n'));
    expect(issueAt(infinite, 'restore_strategies.inf.ranges[0].max')).toMatchObject({ line: 8, message: 'must be a number' });
  });

  it('lets channel_rules only tighten built-in ceilings', () => {
    for (const channel of BUILTIN_CHANNELS) {
      for (const mode of RESTORE_MODES) {
        const text = withBase(`channel_rules:\n  ${channel}: {max_restore_mode: ${mode}}\n`);
        const result = parsePolicy(text, 'c.yaml');
        const widens = modeRank(mode) > modeRank(BUILTIN_CHANNEL_CEILINGS[channel]);
        if (widens) {
          expect(result.issues, `${channel} ${mode}`).toEqual([
            {
              file: 'c.yaml',
              line: 8,
              field: `channel_rules.${channel}.max_restore_mode`,
              message: `may only tighten the built-in ceiling of ${channel} (${BUILTIN_CHANNEL_CEILINGS[channel]})`,
            },
          ]);
        } else {
          expect(result.issues, `${channel} ${mode}`).toEqual([]);
        }
      }
    }
  });

  it('lets custom channels have any ceiling', () => {
    expect(parsePolicy(withBase('channel_rules:\n  partner_portal: {max_restore_mode: full}\n'), 'c.yaml').issues).toEqual([]);
  });

  it('requires detection.required_for to be within ner_labels when both are given', () => {
    const issues = issuesOf(withBase('detection: {ner_labels: [person], required_for: [person, location]}\n'));
    expect(issues).toEqual([{ file: 'test.yaml', line: 7, field: 'detection.required_for[1]', message: 'is not one of detection.ner_labels' }]);
  });
});

describe('formatting helpers', () => {
  it('formats field paths', () => {
    expect(formatFieldPath([])).toBe('(root)');
    expect(formatFieldPath(['rules', 2, 'restore_mode'])).toBe('rules[2].restore_mode');
    expect(formatFieldPath(['channel_rules', 'a b'])).toBe('channel_rules["a b"]');
  });

  it('formats issues as file:line: field: message', () => {
    expect(formatPolicyIssue({ file: 'p.yaml', line: 3, field: 'name', message: 'is required' })).toBe('p.yaml:3: name: is required');
    expect(formatPolicyIssue({ file: 'dir', field: '(directory)', message: 'x' })).toBe('dir: (directory): x');
  });
});
