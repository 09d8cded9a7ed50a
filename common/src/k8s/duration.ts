// `spec.sessionKeys.rotationPeriod`: a Kubernetes-style duration restricted to whole hours,
// minutes and seconds (`720h`, `90m`, `1h30m`, `45s`), the subset of Go's time.ParseDuration
// that both the CRD (pattern + CEL `duration()`) and this parser accept identically.

/** The OpenAPI pattern of the CRD field; the CEL rule adds the minimum. */
export const ROTATION_PERIOD_PATTERN = '^([0-9]{1,6}h)?([0-9]{1,6}m)?([0-9]{1,6}s)?$';
/** Shortest rotation period accepted (one hour): shorter would churn keys faster than sessions. */
export const MIN_ROTATION_PERIOD_SECONDS = 3600;

/** Seconds of a rotation period, or undefined when the text is not one (or is below the minimum). */
export function parseRotationPeriod(text: string): number | undefined {
  const match = new RegExp(ROTATION_PERIOD_PATTERN).exec(text);
  if (match === null || text === '') return undefined;
  const [hours, minutes, seconds] = [match[1], match[2], match[3]].map((part) => (part === undefined ? 0 : Number(part.slice(0, -1))));
  const total = hours! * 3600 + minutes! * 60 + seconds!;
  return total >= MIN_ROTATION_PERIOD_SECONDS ? total : undefined;
}
