// What the output guard flags (issue 18 item 8): by the type's risk and the context the value
// stands in, so that the public things ordinary answers are full of (documentation URLs,
// release dates, versions, private and documentation IP addresses, project role addresses,
// toll-free numbers, placeholder credentials from documentation) pass, while personal data and
// secrets a model writes on its own never do.
//
// Per protection level (the session policy's level for the type, the catalog's by default):
//   critical, high  flagged always (mode strict and permissive), with the type refinements below;
//   medium          strict only, and only with a personal context word before the value
//                   ("my", "her", "patient", "customer", "mein", "son", ...);
//   low             never.
// Type refinements, in both modes:
//   email           not a role or placeholder mailbox (its first word support, security,
//                   noreply, git, user, ...) at a domain that is not a free-mail provider;
//   phone           not a toll-free or freephone service number (NANP 8xx, +800, 0800, +44 808);
//   ip_address      never a reserved address (private, loopback, link-local, documentation,
//                   CGNAT, multicast, netmasks); a public one only with personal context;
//   url             only when it carries a credential (a password in the userinfo, a token,
//                   key, secret or signature query parameter), whatever its level;
//   date            only with birth context ("born", "date of birth", "DOB", "geboren", "né le");
//   credentials     (password, api_key, jwt, private_key, connection_string) not a value that
//                   says it is a placeholder (EXAMPLE, changeme, your-password, xxxx).
// The session's own values (known.ts) are flagged whatever their type and level.
import { ipClass, PERSONAL_WORDS, wordsMatcher } from '../detect/identifying.js';
import type { ProtectionLevel } from '../types.js';
import { guardView } from './view.js';

export type GuardRule = 'always' | 'context' | 'never';
export type GuardMode = 'strict' | 'permissive';

/** The rule a protection level gets (before the type refinements). */
export function ruleForLevel(level: ProtectionLevel): GuardRule {
  if (level === 'critical' || level === 'high') return 'always';
  return level === 'medium' ? 'context' : 'never';
}

/** Characters before a value searched for context words. */
const CONTEXT_WINDOW = 48;
/** Characters after a date searched for a birth label ("12/03/1980 (DOB)"). */
const AFTER_WINDOW = 16;

/** Words that make a medium-risk value someone's (shared with detection, identifying.ts). */
const PERSONAL_CONTEXT = wordsMatcher(PERSONAL_WORDS);

/** Words that make a date a date of birth. */
const BIRTH_CONTEXT = wordsMatcher([
  'born', 'birth', 'birthday', 'birthdate', 'dob', 'd.o.b', 'd.o.b.', 'date of birth', 'geboren', 'geb.', 'geburtsdatum',
  'geburtstag', 'né', 'née', 'né le', 'naissance', 'nacimiento', 'nacido', 'nacida', 'nascita', 'nato', 'nata',
  'geboortedatum', 'nascimento', 'nascido', 'nascida', 'urodzony', 'urodzona', 'urodzenia', 'født', 'född', 'fødselsdato',
]);

/** `matcher` in the view of text[from, to). */
function contextIn(text: string, from: number, to: number, matcher: RegExp): boolean {
  const start = Math.max(0, from);
  const end = Math.min(text.length, to);
  return end > start && matcher.test(guardView(text.slice(start, end)).text);
}

export function personalContext(text: string, start: number): boolean {
  return contextIn(text, start - CONTEXT_WINDOW, start, PERSONAL_CONTEXT);
}

function birthContext(text: string, start: number, end: number): boolean {
  return contextIn(text, start - CONTEXT_WINDOW, start, BIRTH_CONTEXT) || contextIn(text, end, end + AFTER_WINDOW, BIRTH_CONTEXT);
}

// ---- email --------------------------------------------------------------------------------

/** Mailboxes of a function, not a person (RFC 2142 and common practice), and placeholders. */
const ROLE_MAILBOXES = new Set([
  'abuse', 'accounts', 'admin', 'administrator', 'billing', 'bounce', 'bounces', 'careers', 'community', 'conduct',
  'contact', 'customerservice', 'daemon', 'dev', 'developers', 'devnull', 'docs', 'donotreply', 'enquiries', 'feedback',
  'ftp', 'git', 'hello', 'help', 'helpdesk', 'hostmaster', 'hr', 'info', 'inquiries', 'jobs', 'legal', 'licensing',
  'list', 'lists', 'mail', 'mailer', 'marketing', 'media', 'news', 'newsletter', 'noreply', 'no', 'reply', 'not',
  'notifications', 'notify', 'office', 'ops', 'orders', 'partners', 'postmaster', 'press', 'privacy', 'root', 'sales',
  'security', 'service', 'services', 'support', 'team', 'trademarks', 'webmaster', 'www', 'uucp', 'usenet',
  'user', 'username', 'someone', 'somebody', 'you', 'your', 'yourname', 'name', 'me', 'foo', 'bar', 'test', 'example',
]);

/** Free-mail and consumer ISP domains (by their registrable label): mailboxes there are people's. */
const FREE_MAIL = new Set([
  'gmail', 'googlemail', 'yahoo', 'ymail', 'hotmail', 'outlook', 'live', 'msn', 'icloud', 'me', 'mac', 'aol', 'proton',
  'protonmail', 'pm', 'gmx', 'web', 't-online', 'freenet', 'yandex', 'mail', 'qq', '163', '126', 'naver', 'daum', 'zoho',
  'fastmail', 'tutanota', 'tuta', 'hey', 'orange', 'wanadoo', 'free', 'laposte', 'sfr', 'libero', 'virgilio', 'alice',
  'tiscali', 'btinternet', 'sky', 'comcast', 'verizon', 'att', 'rocketmail', 'seznam', 'wp', 'o2', 'interia', 'onet',
]);

function isRoleAddress(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at <= 0) return false;
  const local = value.slice(0, at).toLowerCase();
  const labels = value.slice(at + 1).toLowerCase().split('.');
  // The registrable label: the one before the public suffix (gmail.com, yahoo.co.uk).
  const registrable = labels.length >= 3 && labels[labels.length - 2]!.length <= 3 ? labels[labels.length - 3]! : labels[labels.length - 2] ?? '';
  if (FREE_MAIL.has(registrable)) return false;
  // The mailbox names a function first: support@, security-team@, no-reply@, noreply+x@.
  return ROLE_MAILBOXES.has(local.split(/[._+-]/)[0]!);
}

// ---- phone --------------------------------------------------------------------------------

/** Toll-free and freephone service numbers: a business line, never a person's. */
function isServiceNumber(value: string): boolean {
  const international = value.trimStart().startsWith('+') || value.trimStart().startsWith('00');
  let digits = value.replace(/\D/g, '');
  if (value.trimStart().startsWith('00')) digits = digits.slice(2);
  // NANP toll-free: 800, 833, 844, 855, 866, 877, 888.
  const nanp = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
  if (nanp.length === 10 && /^8(00|33|44|55|66|77|88)/.test(nanp)) return true;
  if (international) {
    // +800 universal freephone; +44 800/808, +49 800, +33 800-805.
    return /^(800|44800|44808|49800|3380[0-5])/.test(digits);
  }
  // Nationally only 0800, freephone across most of Europe (0808 is a mobile prefix in India).
  return digits.startsWith('0800');
}

// ---- IP addresses -------------------------------------------------------------------------

/**
 * Special-purpose and private addresses (loopback, unspecified, documentation, link-local,
 * multicast, broadcast, RFC 1918, CGNAT, unique local without a global id): the classes detection leaves out by
 * default (domain/detect/identifying.ts), so the guard and the input side agree on them. An
 * IPv6 address whose interface id embeds a MAC address is not reserved, whatever its prefix.
 */
export function isReservedIp(value: string): boolean {
  return ipClass(value) !== 'identifying';
}

// ---- URLs ---------------------------------------------------------------------------------

const SECRET_PARAMETER = /[?&#;](?:access_token|id_token|refresh_token|token|api[_-]?key|apikey|key|secret|client_secret|password|passwd|pwd|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|auth|authorization|session|sessionid|jwt)=([^&#\s]+)/i;

/** A URL that carries a credential: a password in the userinfo or a secret query parameter. */
export function urlCarriesCredential(value: string): boolean {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/]*)/i.exec(value)?.[1] ?? '';
  const at = authority.lastIndexOf('@');
  if (at > 0 && authority.slice(0, at).includes(':') && !isPlaceholderValue(authority.slice(authority.indexOf(':') + 1, at))) return true;
  const parameter = SECRET_PARAMETER.exec(value);
  return parameter !== null && !isPlaceholderValue(decodeSafe(parameter[1]!));
}

function decodeSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// ---- credentials --------------------------------------------------------------------------

const PLACEHOLDER_WORDS = /example|sample|dummy|placeholder|changeme|change[-_]me|your[-_ ]?|redacted|xxxx|\*\*\*|\.\.\.|<[^>]*>|\$\{|\{\{|%s/i;
const PASSWORD_PLACEHOLDER = /password|passwd|passwort|secret|hunter2|letmein|123456|qwerty/i;

/** A credential value that says it is not a real one (documentation, templates). */
export function isPlaceholderValue(value: string, type?: string): boolean {
  if (type === 'connection_string') return isPlaceholderValue(connectionPassword(value), 'password');
  if (value.length === 0 || PLACEHOLDER_WORDS.test(value)) return true;
  return type === 'password' && PASSWORD_PLACEHOLDER.test(value);
}

/** The password of a connection string (URI userinfo, or a `Password=` key); '' when none. */
function connectionPassword(value: string): string {
  const authority = /^[a-z][a-z0-9+.:-]*:\/\/([^/]*)/i.exec(value)?.[1];
  if (authority !== undefined) {
    const at = authority.lastIndexOf('@');
    const colon = authority.indexOf(':');
    return at > 0 && colon >= 0 && colon < at ? authority.slice(colon + 1, at) : '';
  }
  return /(?:password|pwd)\s*=\s*([^;]*)/i.exec(value)?.[1] ?? '';
}

const CREDENTIAL_TYPES = new Set(['password', 'api_key', 'jwt', 'private_key', 'connection_string']);

// ---- the decision -------------------------------------------------------------------------

export interface RiskInput {
  readonly type: string;
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Does the guard flag this detection? `text` is the output the detection was found in (for
 * context words), `level` the session policy's protection level for the type.
 */
export function flagsByRisk(detection: RiskInput, text: string, level: ProtectionLevel, mode: GuardMode): boolean {
  const { type, value } = detection;
  // Types whose flagging is decided by their content or a specific context, in both modes.
  switch (type) {
    case 'url':
      return urlCarriesCredential(value);
    case 'date':
      return mode === 'strict' && birthContext(text, detection.start, detection.end);
    case 'ip_address':
      if (isReservedIp(value)) return false;
      break;
    case 'email':
      if (isRoleAddress(value)) return false;
      break;
    case 'phone':
      if (isServiceNumber(value)) return false;
      break;
    default:
      if (CREDENTIAL_TYPES.has(type) && isPlaceholderValue(value, type)) return false;
  }
  const rule = ruleForLevel(level);
  if (rule === 'always') return true;
  return rule === 'context' && mode === 'strict' && personalContext(text, detection.start);
}
