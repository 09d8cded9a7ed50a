// JSON Pointer (RFC 6901) paths for entities found in JSON documents and chat messages. Paths
// are built from the safe (tokenized) keys, so a path never carries a detected value.

/** Escape one reference token: `~` becomes `~0`, `/` becomes `~1` (in that order). */
export function escapePointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** `parent` plus one segment; the root pointer is the empty string. */
export function childPointer(parent: string, segment: string | number): string {
  return `${parent}/${typeof segment === 'number' ? String(segment) : escapePointerSegment(segment)}`;
}

/** Field names quoted in error messages: plain identifiers only, anything else is withheld. */
const NAMEABLE = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** A segment for an error message: the name when it is a plain identifier, else `<field>`. */
export function nameForError(segment: string): string {
  return NAMEABLE.test(segment) ? segment : '<field>';
}
