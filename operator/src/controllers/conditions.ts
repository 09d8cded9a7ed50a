// metav1.Condition bookkeeping shared by the controllers: set a condition while keeping its
// lastTransitionTime when the status did not change (so a no-op reconcile writes nothing), and
// compare whole statuses before patching.
import type { Condition } from '@veil/common';

export interface ConditionInput {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** RFC 3339 without milliseconds, the form Kubernetes writes. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The conditions after setting each of `inputs` (in the given order; others kept). The
 * transition time moves only when `status` flips.
 */
export function setConditions(previous: readonly Condition[] | undefined, inputs: readonly ConditionInput[], generation: number | undefined, nowMs: number): Condition[] {
  const result: Condition[] = [];
  for (const input of inputs) {
    const before = previous?.find((condition) => condition.type === input.type);
    result.push({
      type: input.type,
      status: input.status,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      lastTransitionTime: before !== undefined && before.status === input.status ? before.lastTransitionTime : rfc3339(nowMs),
      reason: input.reason,
      message: input.message,
    });
  }
  for (const condition of previous ?? []) {
    if (!inputs.some((input) => input.type === condition.type)) result.push(condition);
  }
  return result;
}
