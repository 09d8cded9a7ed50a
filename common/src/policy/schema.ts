// The published JSON Schema (draft 2020-12) of one policy file, as a TypeScript value so the
// validator needs no file access. policies/schema.json is the same document, committed for
// editors and CI; a test fails when the two differ. Semantic rules that JSON Schema cannot say
// (unique rule names, strategy references, bucket ordering, tighten-only channel ceilings,
// pattern syntax) live in parse.ts.
import { POLICY_ACTIONS, PROTECTION_LEVELS, RESTORE_MODES } from '../vocabulary.js';

const label = { type: 'string', pattern: '^[a-z0-9_-]+$', minLength: 1, maxLength: 128 };
const callerAttribute = { type: 'string', minLength: 1, maxLength: 128 };
const entityType = { type: 'string', pattern: '^(custom:)?[a-z][a-z0-9_]{0,63}$' };
const entityTypeList = { type: 'array', minItems: 1, maxItems: 256, uniqueItems: true, items: { $ref: '#/$defs/entity_type' } };
const maskChar = {
  description: 'A single visible character (not a control, format or space character); default "*".',
  type: 'string',
  pattern: '^[^\\p{C}\\p{Z}]$',
};

function strategyBranch(kind: string, properties: Record<string, unknown>, required: string[]): unknown {
  return {
    if: { required: ['kind'], properties: { kind: { const: kind } } },
    then: {
      additionalProperties: false,
      required: ['kind', ...required],
      properties: { kind: true, ...properties },
    },
  };
}

export const POLICY_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://veil.dev/schemas/policy.schema.json',
  title: 'Veil policy file',
  description:
    'One policy per YAML file in policy.directory. Rules are first-match-wins; a rule with an empty match matches everything.',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'version', 'rules'],
  properties: {
    name: { description: 'Unique in the directory; selects the policy.', $ref: '#/$defs/label' },
    version: { description: 'Reported as policy_version.', type: 'string', minLength: 1, maxLength: 64 },
    description: { type: 'string', maxLength: 4096 },
    rules: { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/rule' } },
    restore_strategies: {
      type: 'object',
      maxProperties: 256,
      propertyNames: { $ref: '#/$defs/label' },
      additionalProperties: { $ref: '#/$defs/restore_strategy' },
    },
    channel_rules: {
      description: 'Ceilings per output channel. Built-in channels may only be tightened; a custom channel restores nothing unless named here.',
      type: 'object',
      maxProperties: 256,
      propertyNames: { $ref: '#/$defs/label' },
      additionalProperties: { $ref: '#/$defs/channel_rule' },
    },
    override_restore_mode: {
      description: 'Caller-gated restore modes, re-resolved against the rehydrate caller; the first matching entry wins.',
      type: 'array',
      maxItems: 256,
      items: { $ref: '#/$defs/restore_override' },
    },
    custom_patterns: { type: 'array', maxItems: 256, items: { $ref: '#/$defs/custom_pattern' } },
    metadata_policy: { $ref: '#/$defs/metadata_policy' },
    detection: { $ref: '#/$defs/detection' },
  },
  $defs: {
    label,
    entity_type: {
      description: 'A built-in entity type, or a custom type written bare (ticket_id) or prefixed (custom:ticket_id).',
      ...entityType,
    },
    protection_level: { enum: [...PROTECTION_LEVELS] },
    restore_mode: { enum: [...RESTORE_MODES] },
    mask_char: maskChar,
    rule: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'match', 'action'],
      properties: {
        name: { $ref: '#/$defs/label' },
        match: { $ref: '#/$defs/match' },
        action: { enum: [...POLICY_ACTIONS] },
        protection_level: { $ref: '#/$defs/protection_level' },
        restore_mode: { description: 'Restore floor for tokenized values; default full.', $ref: '#/$defs/restore_mode' },
        restore_strategy: { description: 'A key of restore_strategies, applied when the resolved mode is partial.', $ref: '#/$defs/label' },
        reason: { type: 'string', maxLength: 1024 },
      },
    },
    match: {
      type: 'object',
      additionalProperties: false,
      properties: {
        entity_type: { $ref: '#/$defs/entity_type' },
        entity_types: entityTypeList,
        destination: { $ref: '#/$defs/label' },
        protection_level: { $ref: '#/$defs/protection_level' },
        caller_role: callerAttribute,
        caller_purpose: callerAttribute,
        value_pattern: {
          description: 'Unanchored regular expression over the value (JavaScript syntax without lookaround or backreferences; leading (?i) for case-insensitive).',
          type: 'string',
          minLength: 1,
          maxLength: 1024,
        },
      },
    },
    restore_strategy: {
      type: 'object',
      required: ['kind'],
      properties: { kind: { enum: ['reveal_last_n', 'reveal_first_n', 'reveal_range', 'mask', 'bucket'] } },
      allOf: [
        strategyBranch('reveal_last_n', { n: { type: 'integer', minimum: 1, maximum: 64 }, mask_char: { $ref: '#/$defs/mask_char' } }, ['n']),
        strategyBranch('reveal_first_n', { n: { type: 'integer', minimum: 1, maximum: 64 }, mask_char: { $ref: '#/$defs/mask_char' } }, ['n']),
        strategyBranch(
          'reveal_range',
          {
            start: { type: 'integer', minimum: 0, maximum: 4096 },
            len: { type: 'integer', minimum: 1, maximum: 64 },
            mask_char: { $ref: '#/$defs/mask_char' },
          },
          ['start', 'len'],
        ),
        strategyBranch('mask', {}, []),
        strategyBranch(
          'bucket',
          {
            ranges: {
              type: 'array',
              minItems: 1,
              maxItems: 64,
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['label'],
                properties: {
                  min: { description: 'Inclusive lower bound.', type: 'number' },
                  max: { description: 'Exclusive upper bound.', type: 'number' },
                  label: { type: 'string', minLength: 1, maxLength: 128 },
                },
              },
            },
          },
          ['ranges'],
        ),
      ],
    },
    channel_rule: {
      type: 'object',
      additionalProperties: false,
      required: ['max_restore_mode'],
      properties: {
        max_restore_mode: { $ref: '#/$defs/restore_mode' },
        url_restore_mode: {
          description:
            'Ceiling for tokens inside a URL, a link or image target, or an HTML tag on this channel (where a rendered value would leave); default abstract. Raise it only for output that is never rendered; it never exceeds max_restore_mode.',
          $ref: '#/$defs/restore_mode',
        },
      },
    },
    restore_override: {
      description: 'At least one of caller_role and caller_purpose is required; every field given must match the rehydrate caller.',
      type: 'object',
      additionalProperties: false,
      required: ['restore_mode'],
      anyOf: [{ required: ['caller_role'] }, { required: ['caller_purpose'] }],
      properties: {
        caller_role: callerAttribute,
        caller_purpose: callerAttribute,
        entity_types: entityTypeList,
        restore_mode: { $ref: '#/$defs/restore_mode' },
      },
    },
    custom_pattern: {
      type: 'object',
      additionalProperties: false,
      required: ['entity_type', 'pattern'],
      properties: {
        entity_type: { description: 'Bare custom name; rendered custom:<name>.', type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
        pattern: { type: 'string', minLength: 1, maxLength: 1024 },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
        context_words: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 64 } },
      },
    },
    metadata_policy: {
      type: 'object',
      additionalProperties: false,
      properties: {
        expose_gender: { type: 'boolean' },
        expose_formality: { type: 'boolean' },
        expose_language: { type: 'boolean' },
        expose_role: { type: 'boolean' },
        expose_belongs_to: { type: 'boolean' },
        roles: { type: 'array', maxItems: 64, uniqueItems: true, items: { $ref: '#/$defs/label' } },
      },
    },
    detection: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ner_labels: entityTypeList,
        required_for: entityTypeList,
        // Classes of values that identify no one, left unprotected (docs/detection.md "Values that
        // identify no one"); an empty list protects every value of the type.
        non_identifying: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ip_address: { type: 'array', uniqueItems: true, maxItems: 2, items: { enum: ['special_purpose', 'private'] } },
            url: { type: 'array', uniqueItems: true, maxItems: 1, items: { enum: ['public'] } },
          },
        },
      },
    },
  },
} as const;

/** The JSON Schema of one restore strategy, for other schemas (config restore_templates). */
export const RESTORE_STRATEGY_SCHEMA = {
  $schema: POLICY_SCHEMA.$schema,
  $defs: { mask_char: POLICY_SCHEMA.$defs.mask_char },
  ...POLICY_SCHEMA.$defs.restore_strategy,
} as const;
