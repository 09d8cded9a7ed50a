// Character masking shared by the `masked` mode, the `mask` strategy and every fail-closed
// path. Letters, digits and combining marks become the mask character; separators stay, so a
// masked value keeps its shape (`****@*******.***`). Credentials never keep their shape or
// length: they become a fixed `********`.
import { SECRET_ENTITY_TYPES } from '@veil/common';

export const DEFAULT_MASK_CHAR = '*';
/** Fixed mask for credentials, whatever their length (a multi-line private key included). */
export const SECRET_MASK = '********';

const SECRET_TYPES: ReadonlySet<string> = new Set(SECRET_ENTITY_TYPES);
const MASKABLE = /[\p{L}\p{N}\p{M}]/u;

/**
 * A value's characters as Unicode code points, the unit strategies count in (n, start, len),
 * like every span in the service (decisions.md section 3). Grapheme clusters are not used: a
 * cluster split by masking still reveals no more than its revealed code points.
 */
export function codePoints(value: string): string[] {
  return Array.from(value);
}

export function isSecretType(type: string): boolean {
  return SECRET_TYPES.has(type);
}

export function isMaskable(char: string): boolean {
  return MASKABLE.test(char);
}

/**
 * Mask a whole value. Non-credentials: letters/digits replaced, separators kept; when that
 * would leave the value unchanged (no letters or digits), every character is replaced.
 */
export function maskValue(type: string, value: string, maskChar: string = DEFAULT_MASK_CHAR): string {
  if (isSecretType(type)) return maskChar.repeat(SECRET_MASK.length);
  const chars = codePoints(value);
  const masked = chars.map((char) => (isMaskable(char) ? maskChar : char)).join('');
  return masked === value ? maskChar.repeat(chars.length) : masked;
}

/**
 * Reveal the characters (code points) whose index satisfies `reveal`; mask the others.
 * Non-credentials keep separators; credentials mask every unrevealed character.
 */
export function maskExcept(type: string, chars: readonly string[], reveal: (index: number) => boolean, maskChar: string): string {
  const secret = isSecretType(type);
  return chars.map((char, index) => (reveal(index) || (!secret && !isMaskable(char)) ? char : maskChar)).join('');
}
