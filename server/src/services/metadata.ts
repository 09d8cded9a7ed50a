// Entity metadata on responses (interface.md 2.3): gender, formality, language, role and
// belongs_to, inferred by domain/detect/metadata.ts and exposed field by field only when the
// policy's metadata_policy says so. Labels only, never values: belongs_to names the owner's token.
import type { MetadataPolicy } from '@veil/common';
import { inferMetadata } from '../domain/detect/metadata.js';
import type { Detection } from '../domain/types.js';

export interface EntityMetadata {
  gender?: string;
  formality?: string;
  language?: string;
  role?: string;
  belongs_to?: string;
}

export function exposesMetadata(policy: MetadataPolicy | undefined): policy is MetadataPolicy {
  return (
    policy !== undefined &&
    (policy.expose_gender === true ||
      policy.expose_formality === true ||
      policy.expose_language === true ||
      policy.expose_role === true ||
      policy.expose_belongs_to === true)
  );
}

/** Detections with inferred metadata when the policy exposes any; unchanged otherwise. */
export function withMetadata(text: string, detections: Detection[], policy: MetadataPolicy | undefined, language: string): Detection[] {
  if (!exposesMetadata(policy)) return detections;
  return inferMetadata(text, detections, { language, roles: policy.roles ?? [] });
}

/**
 * The exposed metadata of each detection, keyed by its start offset. `tokenAt` gives the token
 * emitted for a detection starting there (undefined when it was allowed through or redacted).
 */
export function exposedMetadata(
  detections: readonly Detection[],
  policy: MetadataPolicy | undefined,
  tokenAt: (start: number) => string | undefined,
): Map<number, EntityMetadata> {
  const out = new Map<number, EntityMetadata>();
  if (!exposesMetadata(policy)) return out;
  for (const detection of detections) {
    const meta: EntityMetadata = {};
    if (policy.expose_gender === true && detection.gender !== undefined) meta.gender = detection.gender;
    if (policy.expose_formality === true && detection.formality !== undefined) meta.formality = detection.formality;
    if (policy.expose_language === true && detection.language !== undefined) meta.language = detection.language;
    if (policy.expose_role === true && detection.role !== undefined) meta.role = detection.role;
    if (policy.expose_belongs_to === true && detection.belongs_to !== undefined) {
      const owner = detections[detection.belongs_to];
      const token = owner !== undefined ? tokenAt(owner.start) : undefined;
      if (token !== undefined) meta.belongs_to = token;
    }
    if (Object.keys(meta).length > 0) out.set(detection.start, meta);
  }
  return out;
}
