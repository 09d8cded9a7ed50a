// Request and response schemas shared by the routes (TypeBox). Unknown fields are rejected
// everywhere (additionalProperties: false); response schemas double as fast serializers.
import { Type, type Static } from 'typebox';
import { BUILTIN_CHANNELS, RESTORE_MODES } from '@veil/common';

export const RestoreModeSchema = Type.Union(RESTORE_MODES.map((mode) => Type.Literal(mode)));
export const LabelSchema = Type.String({ pattern: '^[a-z0-9_-]+$', minLength: 1, maxLength: 64 });
export const LanguageSchema = Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$' });
export const PolicyNameSchema = Type.String({ minLength: 1, maxLength: 128 });
export const TraceIdSchema = Type.String({ minLength: 1, maxLength: 128 });
export const SessionStateSchema = Type.String({ minLength: 1, maxLength: 16 * 1024 * 1024 });

export const ContextSchema = Type.Object(
  {
    destination: Type.Optional(LabelSchema),
    provider: Type.Optional(Type.String({ maxLength: 128 })),
    caller_role: Type.Optional(Type.String({ maxLength: 128 })),
    caller_purpose: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);

export const CustomPatternSchema = Type.Object(
  {
    entity_type: Type.String({ minLength: 1, maxLength: 80 }),
    pattern: Type.String({ minLength: 1, maxLength: 1000 }),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    context_words: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

export const DetectorsSchema = Type.Array(Type.Union([Type.Literal('builtin_regex'), Type.Literal('python_ner')]), {
  minItems: 1,
  maxItems: 2,
  uniqueItems: true,
});

export const TransformBodySchema = Type.Object(
  {
    input: Type.Optional(Type.String()),
    input_type: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('json'), Type.Literal('chat_messages')])),
    input_json: Type.Optional(Type.Unknown()),
    input_messages: Type.Optional(Type.Array(Type.Unknown())),
    language: Type.Optional(LanguageSchema),
    policy: Type.Optional(PolicyNameSchema),
    session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    session_state: Type.Optional(SessionStateSchema),
    detectors: Type.Optional(DetectorsSchema),
    custom_patterns: Type.Optional(Type.Array(CustomPatternSchema, { maxItems: 32 })),
    protection_overrides: Type.Optional(Type.Record(Type.String({ pattern: '^(custom:)?[a-z][a-z0-9_]{0,63}$' }), RestoreModeSchema)),
    context: Type.Optional(ContextSchema),
    trace_id: Type.Optional(TraceIdSchema),
  },
  { additionalProperties: false },
);
export type TransformBody = Static<typeof TransformBodySchema>;

const SpanSchema = Type.Object({ start: Type.Integer(), end: Type.Integer() });

/** Optional entity metadata labels (interface.md 2.3), present only when the policy exposes them. */
const MetadataFields = {
  gender: Type.Optional(Type.String()),
  formality: Type.Optional(Type.String()),
  language: Type.Optional(Type.String()),
  role: Type.Optional(Type.String()),
  belongs_to: Type.Optional(Type.String()),
};

export const TransformEntitySchema = Type.Object({
  token: Type.String(),
  type: Type.String(),
  protection_level: Type.String(),
  action_applied: Type.String(),
  confidence: Type.Number(),
  detector: Type.String(),
  span: SpanSchema,
  ...MetadataFields,
  /** JSON and chat modes: JSON Pointer of the string the span is in; in_key for object keys. */
  path: Type.Optional(Type.String()),
  in_key: Type.Optional(Type.Boolean()),
});

/** Prompt security summary on transform responses: counts per finding kind, never text. */
export const PromptSecuritySchema = Type.Object({
  triggered: Type.Boolean(),
  action: Type.String(),
  findings: Type.Array(Type.Object({ kind: Type.String(), count: Type.Integer() })),
});

/** Output guard summary on rehydrate responses: counts per entity type, never values. */
export const OutputGuardSchema = Type.Object({
  triggered: Type.Boolean(),
  action: Type.String(),
  findings: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })),
});

export const TransformResponseSchema = Type.Object({
  safe_text: Type.String(),
  safe_json: Type.Optional(Type.Unknown()),
  safe_messages: Type.Optional(Type.Array(Type.Unknown())),
  session_state: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
  entity_context: Type.Optional(Type.Array(Type.Object({ token: Type.String(), type: Type.String(), ...MetadataFields }))),
  entities: Type.Array(TransformEntitySchema),
  entity_summary: Type.Optional(Type.Record(Type.String(), Type.Integer())),
  stats: Type.Object({
    entities_detected: Type.Integer(),
    entities_transformed: Type.Integer(),
    entities_blocked: Type.Integer(),
    detection_time_ms: Type.Number(),
    transform_time_ms: Type.Number(),
  }),
  detector_mode: Type.String(),
  warnings: Type.Optional(Type.Array(Type.String())),
  prompt_security: Type.Optional(PromptSecuritySchema),
  policy_version: Type.String(),
  trace_id: Type.String(),
});

export const RehydrateBodySchema = Type.Object(
  {
    output: Type.String(),
    session_state: Type.Optional(SessionStateSchema),
    session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    restore_mode: Type.Optional(RestoreModeSchema),
    restore_overrides: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z]+_[0-9a-f]+$', maxLength: 64 }), RestoreModeSchema)),
    output_channel: Type.Optional(LabelSchema),
    trace_id: Type.Optional(TraceIdSchema),
    context: Type.Optional(ContextSchema),
  },
  { additionalProperties: false },
);
export type RehydrateBody = Static<typeof RehydrateBodySchema>;

/** The first line of an ndjson /v1/rehydrate/stream body: the rehydrate body without `output`. */
export const RehydrateParamsSchema = Type.Omit(RehydrateBodySchema, ['output'], { additionalProperties: false });

/**
 * /v1/rehydrate accepts `output` (text) or `output_json` (a tokenized JSON document, restored
 * string by string so restored values are escaped and the document stays valid JSON).
 */
export const RehydrateAnyBodySchema = Type.Object(
  { ...Type.Omit(RehydrateBodySchema, ['output']).properties, output: Type.Optional(Type.String()), output_json: Type.Optional(Type.Unknown()) },
  { additionalProperties: false },
);
export type RehydrateAnyBody = Static<typeof RehydrateAnyBodySchema>;

export const RehydrateResponseSchema = Type.Object({
  restored_text: Type.String(),
  restored_json: Type.Optional(Type.Unknown()),
  tokens_resolved: Type.Integer(),
  tokens_unresolved: Type.Array(Type.Object({ token: Type.String(), reason: Type.String() })),
  stats: Type.Object({ rehydrate_time_ms: Type.Number() }),
  trace_id: Type.String(),
  output_guard: Type.Optional(OutputGuardSchema),
  warnings: Type.Optional(Type.Array(Type.String())),
});

export const DetectBodySchema = Type.Object(
  {
    input: Type.String(),
    language: Type.Optional(LanguageSchema),
    detectors: Type.Optional(DetectorsSchema),
    custom_patterns: Type.Optional(Type.Array(CustomPatternSchema, { maxItems: 32 })),
    entity_types: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 80 }), { maxItems: 256 })),
    threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    policy: Type.Optional(PolicyNameSchema),
    include_values: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type DetectBody = Static<typeof DetectBodySchema>;

export const DetectResponseSchema = Type.Object({
  entities: Type.Array(
    Type.Object({ type: Type.String(), value: Type.String(), span: SpanSchema, confidence: Type.Number(), detector: Type.String() }),
  ),
  stats: Type.Object({
    detection_time_ms: Type.Number(),
    detectors_used: Type.Array(Type.String()),
    detector_mode: Type.String(),
  }),
  warnings: Type.Optional(Type.Array(Type.String())),
});

export const EvaluatePolicyBodySchema = Type.Object(
  {
    policy: Type.Optional(PolicyNameSchema),
    entities: Type.Array(
      Type.Object(
        { type: Type.String({ minLength: 1, maxLength: 80 }), value: Type.Optional(Type.String({ maxLength: 65536 })) },
        { additionalProperties: false },
      ),
      { maxItems: 1000 },
    ),
    context: Type.Optional(ContextSchema),
    output_channel: Type.Optional(LabelSchema),
  },
  { additionalProperties: false },
);
export type EvaluatePolicyBody = Static<typeof EvaluatePolicyBodySchema>;

export const EntityTypesBodySchema = Type.Object({ name: Type.String({ maxLength: 256 }) }, { additionalProperties: false });
export const PatternsBodySchema = Type.Object(
  {
    entity_type: Type.Optional(Type.String({ maxLength: 256 })),
    pattern: Type.String({ maxLength: 4096 }),
    confidence: Type.Optional(Type.Number()),
    context_words: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 64 })),
    sample: Type.Optional(Type.String({ maxLength: 65536 })),
  },
  { additionalProperties: false },
);

export const CHANNEL_NAMES: readonly string[] = BUILTIN_CHANNELS;

/** interface.md 4.7: one batch transform item (text, json or chat; policy and language per item). */
export const BatchTransformItemSchema = Type.Object(
  {
    text: Type.Optional(Type.String()),
    input_type: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('json'), Type.Literal('chat_messages')])),
    input_json: Type.Optional(Type.Unknown()),
    input_messages: Type.Optional(Type.Array(Type.Unknown())),
    policy: Type.Optional(PolicyNameSchema),
    language: Type.Optional(LanguageSchema),
  },
  { additionalProperties: false },
);
export type BatchTransformItem = Static<typeof BatchTransformItemSchema>;

/** The batch transform body; `maxItems` is the configured limits.max_batch_size. */
export function batchTransformBodySchema(maxItems: number) {
  return Type.Object(
    {
      items: Type.Array(BatchTransformItemSchema, { minItems: 1, maxItems }),
      session_mode: Type.Optional(Type.Union([Type.Literal('independent'), Type.Literal('shared')])),
      policy: Type.Optional(PolicyNameSchema),
    },
    { additionalProperties: false },
  );
}
export type BatchTransformBody = Static<ReturnType<typeof batchTransformBodySchema>>;

export const BatchTransformResponseSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      index: Type.Integer(),
      safe_text: Type.String(),
      safe_json: Type.Optional(Type.Unknown()),
      safe_messages: Type.Optional(Type.Array(Type.Unknown())),
      entities_detected: Type.Integer(),
      entities_transformed: Type.Integer(),
      session_state: Type.Optional(Type.String()),
      session_id: Type.Optional(Type.String()),
      prompt_security: Type.Optional(PromptSecuritySchema),
      warnings: Type.Optional(Type.Array(Type.String())),
      error: Type.Optional(Type.String()),
      code: Type.Optional(Type.String()),
    }),
  ),
  stats: Type.Object({ total_items: Type.Integer(), total_entities: Type.Integer(), total_time_ms: Type.Number() }),
});

/** interface.md 4.8: one batch detect item. */
export const BatchDetectItemSchema = Type.Object(
  { text: Type.String(), language: Type.Optional(LanguageSchema), policy: Type.Optional(PolicyNameSchema) },
  { additionalProperties: false },
);

export function batchDetectBodySchema(maxItems: number) {
  return Type.Object(
    {
      items: Type.Array(BatchDetectItemSchema, { minItems: 1, maxItems }),
      include_values: Type.Optional(Type.Boolean()),
      policy: Type.Optional(PolicyNameSchema),
    },
    { additionalProperties: false },
  );
}
export type BatchDetectBody = Static<ReturnType<typeof batchDetectBodySchema>>;

export const BatchDetectResponseSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      index: Type.Integer(),
      entities: DetectResponseSchema.properties.entities,
      warnings: Type.Optional(Type.Array(Type.String())),
      error: Type.Optional(Type.String()),
      code: Type.Optional(Type.String()),
    }),
  ),
  stats: Type.Object({ total_items: Type.Integer(), total_entities: Type.Integer(), total_time_ms: Type.Number() }),
});
