// JSON helpers shared by the client, the simulator and the controllers: RFC 7386 merge patches
// (compute and apply), deep equality, and the "desired is a subset of actual" test that lets a
// controller ignore fields the API server defaults (imagePullPolicy, clusterIP, ...).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keysA = Object.keys(a).filter((key) => a[key] !== undefined);
    const keysB = Object.keys(b).filter((key) => b[key] !== undefined);
    return keysA.length === keysB.length && keysA.every((key) => deepEqual(a[key], b[key]));
  }
  return false;
}

/**
 * True when every field set in `desired` has the same value in `actual`. Objects recurse (extra
 * keys in `actual` are server defaults and ignored); arrays must have the same length and match
 * item by item under the same rule; scalars must be equal.
 */
export function isSubset(desired: unknown, actual: unknown): boolean {
  if (desired === undefined) return true;
  if (Array.isArray(desired)) {
    return Array.isArray(actual) && actual.length === desired.length && desired.every((item, index) => isSubset(item, actual[index]));
  }
  if (isPlainObject(desired)) {
    if (!isPlainObject(actual)) return false;
    return Object.entries(desired).every(([key, value]) => isSubset(value, actual[key]));
  }
  return desired === actual;
}

/** Apply an RFC 7386 merge patch: null deletes, objects merge, everything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const result = new Map<string, unknown>(isPlainObject(target) ? Object.entries(target) : []);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) result.delete(key);
    else result.set(key, applyMergePatch(result.get(key), value));
  }
  return Object.fromEntries(result);
}

/**
 * The merge patch that turns `from` into `to` (both objects): changed keys carry the new value,
 * removed keys carry null. Empty result = nothing to write.
 */
export function mergePatchFor(from: Record<string, unknown>, to: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (from[key] !== undefined && to[key] === undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    const before = from[key];
    if (deepEqual(before, value)) continue;
    patch[key] = isPlainObject(before) && isPlainObject(value) ? mergePatchFor(before, value) : value;
  }
  return patch;
}
