// Values of an identifying type that identify no one (issue 18 item 7, docs/detection.md "Values
// that identify no one"): IP addresses of special-purpose and private ranges, and URLs whose every
// part is public. The detectors still find them (a public URL claims its span, so nothing inside
// it is reported on its own); the final merge drops them when the policy's
// `detection.non_identifying` releases their class. The output guard judges IP addresses with
// the same ranges (guard/risk.ts), so what passes on the way in passes on the way out.
import { canonicalEntityType, type Policy, type PolicyRule } from '@veil/common';
import { entityInfo } from '../catalog.js';
import type { Detection } from '../types.js';
import { detectAll } from './index.js';

/**
 * special_purpose: no host anyone can reach or name (loopback, unspecified, documentation,
 * link-local, multicast, broadcast, benchmarking, reserved); private: a host inside some
 * network (RFC 1918, CGNAT, IPv6 unique local with a zero global id), the same address in
 * millions of networks; a unique local address with a global id is identifying: RFC 4193 makes that
 * 40-bit id random so it names one site (one organization's network) worldwide;
 * identifying: everything else, and any IPv6 address whose interface identifier embeds a MAC
 * address (modified EUI-64, `xxff:fexx` in the middle), whatever its prefix.
 */
export type IpClass = 'special_purpose' | 'private' | 'identifying';

export const IP_CLASSES = ['special_purpose', 'private'] as const;
export const URL_CLASSES = ['public'] as const;

/** The classes a policy releases per type (`detection.non_identifying`), already defaulted. */
export interface NonIdentifying {
  readonly ip_address: readonly (typeof IP_CLASSES)[number][];
  readonly url: readonly (typeof URL_CLASSES)[number][];
}

/** Without a policy setting: special-purpose and private addresses and public URLs identify no one. */
export const DEFAULT_NON_IDENTIFYING: NonIdentifying = Object.freeze({
  ip_address: Object.freeze(['special_purpose', 'private'] as const),
  url: Object.freeze(['public'] as const),
});

/** Nothing released: every detected address and URL is protected. */
export const NONE_RELEASED: NonIdentifying = Object.freeze({ ip_address: Object.freeze([]), url: Object.freeze([]) });

// ---- IP addresses -------------------------------------------------------------------------

function ipv4Class(a: number, b: number, c: number): IpClass {
  if (
    a === 0 || // "this network", unspecified
    a === 127 || // loopback
    a >= 224 || // multicast 224/4, reserved 240/4, limited broadcast
    (a === 169 && b === 254) || // link-local
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // TEST-NET-2
    (a === 203 && b === 0 && c === 113) // TEST-NET-3
  ) {
    return 'special_purpose';
  }
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
  return 'identifying';
}

function parseIpv4(value: string): [number, number, number, number] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (match === null) return undefined;
  const parts = match.slice(1, 5).map(Number) as [number, number, number, number];
  return parts.every((part) => part <= 255) ? parts : undefined;
}

/** The eight 16-bit groups of an IPv6 text (with `::` expanded, an embedded IPv4 as two groups). */
function ipv6Groups(value: string): number[] | undefined {
  let text = value;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.indexOf('.', lastColon) > lastColon) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    // "::ffff:1.2.3.4" -> "::ffff"; "::1.2.3.4" -> "::" (the colon stays only as part of "::").
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const parse = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups = part.split(':').map((group) => (/^[0-9a-f]{1,4}$/i.test(group) ? parseInt(group, 16) : NaN));
    return groups.some(Number.isNaN) ? undefined : groups;
  };
  const compressed = text.indexOf('::');
  let groups: number[] | undefined;
  if (compressed >= 0) {
    const left = parse(text.slice(0, compressed));
    const right = parse(text.slice(compressed + 2));
    if (left === undefined || right === undefined) return undefined;
    const missing = 8 - left.length - right.length - tail.length;
    if (missing < 1) return undefined;
    groups = [...left, ...new Array<number>(missing).fill(0), ...right, ...tail];
  } else {
    const explicit = parse(text);
    if (explicit === undefined) return undefined;
    groups = [...explicit, ...tail];
  }
  return groups.length === 8 ? groups : undefined;
}

function ipv6Class(groups: readonly number[]): IpClass {
  const [g0, g1, g2, g3, g4, g5, g6] = groups as [number, number, number, number, number, number, number, number];
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated compatible form take the IPv4 address's class.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0) && (g5 !== 0 || g6 !== 0)) {
    const v4 = [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255] as const;
    if (g5 === 0xffff || v4[0] !== 0) return ipv4Class(v4[0], v4[1], v4[2]);
  }
  if (groups.every((group, index) => group === 0 || (index === 7 && group === 1))) return 'special_purpose'; // :: and ::1
  // An interface identifier that embeds a MAC address (modified EUI-64: ff:fe in its middle)
  // names a device, whatever the prefix it sits in.
  if ((g5 & 0xff) === 0xff && groups[6]! >> 8 === 0xfe) return 'identifying';
  if (
    (g0 & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (g0 & 0xff00) === 0xff00 || // multicast ff00::/8
    (g0 === 0x2001 && g1 === 0x0db8) || // documentation 2001:db8::/32
    (g0 & 0xfff0) === 0x3ff0 || // documentation 3fff::/20 (RFC 9637)
    (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) || // discard-only 100::/64
    (g0 === 0x2001 && g1 === 0x0002 && g2 === 0) // benchmarking 2001:2::/48
  ) {
    return 'special_purpose';
  }
  // Unique local fc00::/7: private only without a global id (fd00::/48, what home routers and
  // examples use); RFC 4193's random 40-bit global id names one site worldwide.
  if ((g0 & 0xfe00) === 0xfc00) return (g0 & 0xff) === 0 && g1 === 0 && g2 === 0 ? 'private' : 'identifying';
  return 'identifying';
}

/** The class of an IP address as written (`[v6]`, `%zone` and a `:port` after IPv4 allowed). */
export function ipClass(value: string): IpClass {
  let text = value.trim().toLowerCase();
  if (text.startsWith('[')) text = text.slice(1, text.indexOf(']') > 0 ? text.indexOf(']') : undefined);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (!text.includes(':') || /^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(text)) {
    const v4 = parseIpv4(text.replace(/:\d+$/, ''));
    return v4 === undefined ? 'identifying' : ipv4Class(v4[0], v4[1], v4[2]);
  }
  const groups = ipv6Groups(text);
  return groups === undefined ? 'identifying' : ipv6Class(groups);
}

// ---- context ------------------------------------------------------------------------------

/** A case-insensitive matcher for whole words and phrases (no letter or digit on either side). */
export function wordsMatcher(words: readonly string[]): RegExp {
  const escaped = [...words].sort((a, b) => b.length - a.length).map((word) => word.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
}

/** Possessives and roles of a person: what makes a value someone's (the output guard's list too). */
export const PERSONAL_WORDS: readonly string[] = [
  'my', 'his', 'her', 'their', 'patient', "patient's", 'customer', "customer's", 'employee', "employee's", 'applicant',
  'member', 'owner', 'subscriber', 'holder', 'cardholder', 'account holder', 'victim', 'suspect', "client's",
  'mein', 'meine', 'meiner', 'sein', 'seine', 'ihr', 'ihre', 'kunde', 'patientin', 'mon', 'ma', 'mes', 'son', 'sa', 'ses',
  'mi', 'mis', 'su', 'sus', 'mio', 'mia', 'suo', 'sua', 'mijn', 'zijn', 'haar', 'meu', 'minha', 'seu', 'cliente', 'paciente',
];

/** Labels of a contact card that give a URL as someone's address (`Web: …`, `Homepage: …`). */
const CONTACT_LABEL = new RegExp(
  `${wordsMatcher([
    'web', 'website', 'web site', 'webseite', 'homepage', 'home page', 'blog', 'portfolio', 'profile', 'profil', 'perfil',
    'site web', 'sitio web', 'sito web', 'página web', 'pagina web', 'linkedin', 'xing', 'personal page', 'internet',
  ]).source}\\s*[:：=]?\\s*[<(\\[]?$`,
  'iu',
);
const PERSONAL_CONTEXT = wordsMatcher(PERSONAL_WORDS);

/** Characters before a URL, on its own line, searched for a contact label or a possessive. */
const URL_CONTEXT_WINDOW = 48;

/** A URL given as someone's address: after a contact-card label, or with a possessive before it on its line. */
export function urlInPersonalContext(text: string, start: number): boolean {
  // Only the window is looked at (never a scan back to the previous line): linear in any text.
  const window = text.slice(Math.max(0, start - URL_CONTEXT_WINDOW), start);
  const before = window.slice(window.lastIndexOf('\n') + 1);
  return CONTACT_LABEL.test(before) || PERSONAL_CONTEXT.test(before);
}

// ---- URLs ---------------------------------------------------------------------------------

/**
 * Hosts that name a person or a customer tenant in their first label: pages, apps and buckets
 * on shared platforms (`jdoe.github.io`, `acme.atlassian.net`). Matched as a suffix of the host.
 */
const TENANT_SUFFIXES = [
  'github.io', 'gitlab.io', 'bitbucket.io', 'pages.dev', 'workers.dev', 'netlify.app', 'netlify.com', 'vercel.app', 'herokuapp.com',
  'web.app', 'firebaseapp.com', 'glitch.me', 'repl.co', 'replit.app', 'fly.dev', 'onrender.com', 'azurewebsites.net',
  'blogspot.com', 'wordpress.com', 'substack.com', 'tumblr.com', 'medium.com', 'wixsite.com', 'squarespace.com', 'neocities.org',
  'carrd.co', 'notion.site', 'myshopify.com', 'atlassian.net', 'slack.com', 'zendesk.com', 'sharepoint.com', 'my.salesforce.com',
  'service-now.com', 'freshdesk.com', 's3.amazonaws.com', 'blob.core.windows.net', 'storage.googleapis.com', 'ngrok.io',
  'ngrok-free.app', 'ngrok.app', 'trycloudflare.com', 'loca.lt',
];

/** TENANT_SUFFIXES as `.suffix` (a tenant's subdomain), built once. */
const TENANT_DOTTED: readonly string[] = TENANT_SUFFIXES.map((suffix) => `.${suffix}`);

/** Social and profile sites: any page below the host is a person's or an account's. */
const PROFILE_HOSTS = new Set([
  'facebook.com', 'fb.com', 'instagram.com', 'twitter.com', 'x.com', 'linkedin.com', 'tiktok.com', 'threads.net', 'bsky.app',
  'pinterest.com', 'snapchat.com', 'vk.com', 'ok.ru', 'xing.com', 'about.me', 'linktr.ee', 'keybase.io', 'gravatar.com',
  'onlyfans.com', 'patreon.com', 'ko-fi.com', 'buymeacoffee.com', 'paypal.me', 'venmo.com', 'cash.app', 't.me', 'wa.me',
  'calendly.com', 'zoom.us', 'meet.google.com', 'teams.microsoft.com', 'docs.google.com', 'drive.google.com', 'dropbox.com',
  'onedrive.live.com', '1drv.ms', 'wetransfer.com', 'we.tl',
]);
/** PROFILE_HOSTS as `.host` suffixes (subdomains of a profile site), built once. */
const PROFILE_SUFFIXES: readonly string[] = [...PROFILE_HOSTS].map((site) => `.${site}`);

/**
 * Map and location-sharing sites: a link below them is a place someone shares or looks up (a
 * home, a meeting point, a route), whatever its path or query says (`?q=221B+Baker+Street`).
 */
const MAP_HOSTS = new Set(['maps.google.com', 'maps.app.goo.gl', 'goo.gl', 'maps.apple.com', 'openstreetmap.org', 'osm.org', 'waze.com', 'what3words.com', 'w3w.co', 'mapquest.com', 'wego.here.com', 'share.here.com', 'plus.codes', 'geohack.toolforge.org']);

/** A map link: a map host, or `/maps` on a search engine's host (`google.de/maps/place/…`). */
function mapLink(registrable: string, segments: readonly string[]): boolean {
  if (MAP_HOSTS.has(registrable) || registrable.startsWith('maps.') || registrable.startsWith('map.')) return true;
  return /^(?:google|bing|yandex|baidu)\.[a-z.]+$/.test(registrable) && segments[0]?.toLowerCase() === 'maps';
}

/** Code-hosting sites: `/owner/project` is a public project; `/owner` alone is an account's page. */
const CODE_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org', 'sr.ht', 'huggingface.co']);

/** Top-level names of private networks: hosts there are an organization's own machines. */
const INTERNAL_TLDS = new Set(['local', 'localdomain', 'internal', 'intranet', 'corp', 'lan', 'home', 'private', 'intra', 'priv']);

/** Names reserved for documentation and tests (RFC 2606, RFC 6761): they name no one's site. */
function documentationHost(host: string): boolean {
  return /(?:^|\.)example\.(?:com|net|org)$/.test(host) || /\.(?:example|test|invalid|localhost)$/.test(host) || host === 'localhost';
}

/** Path segments after which the next segment names a person or an account. */
const PERSON_COLLECTIONS = new Set([
  'u', 'user', 'users', 'people', 'person', 'persons', 'profile', 'profiles', 'member', 'members', 'customer', 'customers',
  'client', 'clients', 'account', 'accounts', 'patient', 'patients', 'employee', 'employees', 'staff', 'student', 'students',
  'contact', 'contacts', 'author', 'authors', 'in', 'pub', 'benutzer', 'kunde', 'kunden', 'utilisateur', 'usuario', 'utente',
  'order', 'orders', 'invoice', 'invoices', 'ticket', 'tickets', 'case', 'cases', 'applicant', 'applicants', 'candidate',
  'candidates', 'subscriber', 'subscribers', 'reservation', 'reservations', 'booking', 'bookings', 'share', 's', 'invite', 'join',
]);

/** Query and fragment parameter names whose value is personal or secret. */
const PERSONAL_PARAMETER =
  /^(?:e?mail|email_?address|user(?:_?name|_?id)?|uid|login|name|first_?name|last_?name|full_?name|given_?name|family_?name|surname|phone|tel|mobile|msisdn|address|street|zip|postcode|dob|birth(?:_?date)?|ssn|account(?:_?id)?|acct|customer(?:_?id)?|client_?id|patient(?:_?id)?|member(?:_?id)?|person(?:_?id)?|id|ids|uuid|guid|referr?al|invite|code|state|nonce|ticket|otp|pin|token|access_?token|id_?token|refresh_?token|api_?key|apikey|key|secret|client_?secret|password|passwd|pwd|pass|sig|signature|x-amz-[a-z-]+|x-goog-[a-z-]+|auth|authorization|session(?:_?id)?|sid|jwt|hash|ip|iban|card|recipient)$/i;

/** Hosts of package registries and CDNs, where `@scope` in a path is a package scope, not a handle. */
const PACKAGE_HOSTS = new Set(['npmjs.com', 'npmjs.org', 'unpkg.com', 'cdn.jsdelivr.net', 'esm.sh', 'cdn.skypack.dev', 'jsr.io', 'yarnpkg.com', 'bundlephobia.com', 'socket.dev', 'libraries.io', 'deno.land']);

/** Path segments after which the next one is a revision id (a git hash), public like its project. */
const REVISION_SEGMENTS = new Set(['commit', 'commits', 'tree', 'blob', 'blame', 'raw', 'rev', 'revision', 'changeset', 'compare']);

/**
 * A random-looking token: a hex digest, or a run whose letters and digits alternate like a
 * generated key (`Xk3Lm9Qp2Rs7Tv5W`, `1AbCdEfGhIjK…`), not a word, a slug or a CamelCase name.
 */
function tokenLike(run: string): boolean {
  if (run.length < 16) return false;
  if (/^[0-9a-f]+$/i.test(run) && /\d/.test(run) && /[a-f]/i.test(run)) return true;
  const classes = run.replace(/[-_]/g, '').match(/[A-Z]+|[a-z]+|\d+/g) ?? [];
  let digitRuns = 0;
  let short = 0;
  for (const part of classes) {
    if (part.charCodeAt(0) <= 57) digitRuns++;
    if (part.length <= 2) short++;
  }
  return digitRuns >= 3 || (classes.length >= 6 && short / classes.length > 0.6);
}

/** A value that reads as an identifier: an e-mail, a phone or account number, a UUID, a token. */
function identifierShaped(raw: string, revision = false): boolean {
  const value = decode(raw);
  // An e-mail address (a domain ending in letters: `core@7.24.0` is a package at a version).
  if (/[^@\s/]@[^@\s/]+\.[A-Za-z]{2,}(?![A-Za-z0-9-])/.test(value) || value.startsWith('~')) return true;
  if (/^\d{10,}$/.test(value)) return true; // national ids, phone and account numbers
  let digits = 0;
  for (let k = 0; k < value.length; k++) {
    const code = value.charCodeAt(k);
    if (code >= 48 && code <= 57) digits++;
  }
  if (digits >= 7 && /^\+?[\d\s().-]+$/.test(value) && /[+\s().-]/.test(value)) return true; // +1 415-555-…
  if (/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.test(value)) return true;
  if (revision && /^[0-9a-f]{7,40}$/i.test(value)) return false;
  // No run of a shorter value is long enough to be a token (tokenLike wants 16 characters).
  return value.length >= 16 && value.split(/[^A-Za-z0-9_-]+/).some(tokenLike);
}

function decode(value: string): string {
  // Without a '%' there is nothing to unescape (and nothing malformed to throw on): only the
  // '+' to replace. Most URL parts and labels take this path, which skips decodeURIComponent.
  if (!value.includes('%')) return value.includes('+') ? value.replace(/\+/g, ' ') : value;
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/** Query or fragment parameters: personal by name or by the shape of their value. */
function parametersPersonal(part: string): boolean {
  for (const pair of part.split(/[&;]/)) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq)).trim();
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    if (eq >= 0 && value !== '' && PERSONAL_PARAMETER.test(name.replace(/\[\]$/, ''))) return true;
    if (identifierShaped(value) || (eq < 0 && identifierShaped(name))) return true;
  }
  return false;
}

function hostPublic(host: string, ipReleased: (klass: IpClass) => boolean): boolean {
  if (host.startsWith('[')) return ipReleased(ipClass(host));
  if (host === 'localhost' || host.endsWith('.localhost')) return ipReleased('special_purpose');
  const labels = host.split('.');
  const last = labels[labels.length - 1]!;
  if (/^\d+$/.test(last)) return ipReleased(ipClass(host));
  if (INTERNAL_TLDS.has(last) || (labels.length >= 2 && labels.slice(-2).join('.') === 'home.arpa')) return false;
  if (TENANT_DOTTED.some((suffix) => host.endsWith(suffix))) return false;
  // A name that spells an address (`host-81-2-69-160.isp.example`, `ec2-54-12-34-56.…`, `10.0.0.1.nip.io`)
  // is as identifying as the address: reverse-DNS names of subscribers' lines look like this.
  const spelled = /(?:^|[^\d])(\d{1,3})[-.](\d{1,3})[-.](\d{1,3})[-.](\d{1,3})(?![\d])/.exec(host);
  if (spelled !== null && !ipReleased(ipClass(spelled.slice(1, 5).join('.')))) return false;
  return !labels.some((label) => identifierShaped(label));
}

/**
 * True when no part of the URL is personal or secret: no userinfo; a public host (not an IP
 * address the policy protects, not a private-network name, not a person's or tenant's subdomain
 * on a shared platform, not a profile site); no path segment that is a handle, an e-mail, an id
 * after a person-like collection (`/users/4711`) or a token; no query or fragment parameter that
 * is personal or secret by name or shape. `ipReleased` says which IP classes count as public.
 */
export function urlIsPublic(value: string, ipReleased: (klass: IpClass) => boolean = () => false): boolean {
  // Judged on the compatibility form, as detection reads text: `ｕｓｅｒｓ／１２３` is `users/123`.
  const match = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/is.exec(value.normalize('NFKC'));
  if (match === null) return false;
  const authority = match[2]!;
  if (authority.includes('@')) return false;
  const host = authority.replace(/:\d*$/, '').toLowerCase().replace(/\.$/, '');
  if (host === '' || !hostPublic(host, ipReleased)) return false;
  const registrable = host.replace(/^(?:www|m|mobile)\./, '');
  const segments = match[3]!.split('/').filter((segment) => segment !== '');
  // The address of a site on its own (`https://jane-doe.dev/`) names the site's owner, as the
  // domain of an e-mail does: a contact detail. A page of a site (a path) is its content.
  const origin = segments.length === 0 && (match[4] ?? '') === '' && (match[5] ?? '') === '';
  if (origin && !documentationHost(host) && !/^\[|^\d+(?:\.\d+){3}$/.test(host)) return false;
  if (segments.length > 0 && (PROFILE_HOSTS.has(registrable) || PROFILE_SUFFIXES.some((suffix) => registrable.endsWith(suffix)))) return false;
  if (CODE_HOSTS.has(registrable) && segments.length === 1 && !/^(?:about|features|pricing|topics|explore|marketplace|docs|sponsors|orgs|settings|login|join|search|trending|collections|enterprise|security|models|datasets|spaces)$/i.test(segments[0]!)) {
    return false;
  }
  if (mapLink(registrable, segments) && (segments.length > 0 || (match[4] ?? '') !== '' || (match[5] ?? '') !== '')) return false;
  const packages = PACKAGE_HOSTS.has(registrable);
  if (!pathPublic(segments, packages)) return false;
  if (match[4] !== undefined && parametersPersonal(match[4])) return false;
  const fragment = match[5];
  if (fragment !== undefined && fragment !== '') {
    // A client-side route (`#/profile/8812`, `#!/users/5?tab=1`) is a path and a query like the real ones.
    const route = /^!?\/([^?]*)(?:\?(.*))?$/s.exec(fragment);
    if (route !== null) {
      if (!pathPublic(route[1]!.split('/').filter((segment) => segment !== ''), packages)) return false;
      if (route[2] !== undefined && parametersPersonal(route[2])) return false;
    } else if (fragment.includes('=') ? parametersPersonal(fragment.replace(/^[!/?]+/, '')) : identifierShaped(fragment)) {
      return false;
    }
  }
  return !carriesValue(`${match[3]!}${match[4] === undefined ? '' : `?${match[4]}`}${match[5] === undefined ? '' : `#${match[5]}`}`);
}

/** Types found inside a URL that do not make it personal by themselves (a release date, a docs page's own link). */
const HARMLESS_INSIDE = new Set(['date', 'url']);

/**
 * Only a value found with some evidence counts inside a URL: a bare shape at the detectors'
 * weakest confidence (an article id `HT201222` read as a NINO without its label) does not make a
 * documentation link personal; checksummed, labelled or well-formed values score 0.6 and above.
 */
const INSIDE_MIN_CONFIDENCE = 0.6;

/**
 * True when the detectors find a value in the URL's path, query or fragment, read as free text
 * (decoded, its delimiters as spaces): a card number in a query (`?note=card+4111…`), an SSN or
 * an IBAN in a path. The shape checks above know identifiers by their form; this asks the same
 * detectors that protect free text, so a URL never carries raw what a sentence would not.
 */
function carriesValue(rest: string): boolean {
  if (rest === '') return false;
  const words = decode(rest).replace(/[/?#&=;]+/g, ' ');
  return detectAll(words).some(
    (found) =>
      found.confidence >= INSIDE_MIN_CONFIDENCE &&
      !HARMLESS_INSIDE.has(found.type) &&
      (found.type !== 'ip_address' || ipClass(found.value) === 'identifying'),
  );
}

/** No segment is an identifier, a handle, or the member after a person-like collection. */
function pathPublic(segments: readonly string[], packages: boolean): boolean {
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const previous = index > 0 ? decode(segments[index - 1]!).toLowerCase() : '';
    if (identifierShaped(segment, REVISION_SEGMENTS.has(previous))) return false;
    // `/@jdoe` is a handle (Medium, YouTube, Mastodon); `/@types/node` on a registry is a scope.
    if (!packages && (segment.startsWith('@') || segment.startsWith('%40'))) return false;
    if (index + 1 < segments.length && PERSON_COLLECTIONS.has(decode(segment).toLowerCase())) return false;
  }
  return true;
}

// ---- the policy's classes -----------------------------------------------------------------

const RESOLVED = new WeakMap<Policy, NonIdentifying>();

/** A `deny` rule or a value rule (`value_pattern`) that can match values of `type`. */
function ruleTargets(rule: PolicyRule, type: 'ip_address' | 'url'): boolean {
  if (rule.action !== 'deny' && rule.match.value_pattern === undefined) return false;
  const named = [rule.match.entity_type, ...(rule.match.entity_types ?? [])].filter((name) => name !== undefined).map(canonicalEntityType);
  if (named.length > 0 && !named.includes(type)) return false;
  return rule.match.protection_level === undefined || rule.match.protection_level === entityInfo(type)?.protectionLevel;
}

/**
 * The classes `policy` releases (no policy: the defaults). A policy that denies addresses or URLs,
 * or has a rule for particular values of them (`value_pattern`), sees every one of that type:
 * its rule decides, so a `deny` on URLs still refuses a documentation link, and a value rule
 * still matches `10.0.0.1`.
 */
export function nonIdentifyingFor(policy: Policy | undefined): NonIdentifying {
  if (policy === undefined) return DEFAULT_NON_IDENTIFYING;
  const cached = RESOLVED.get(policy);
  if (cached !== undefined) return cached;
  const configured = policy.detection?.non_identifying;
  const resolved: NonIdentifying = Object.freeze({
    ip_address: policy.rules.some((rule) => ruleTargets(rule, 'ip_address')) ? [] : (configured?.ip_address ?? DEFAULT_NON_IDENTIFYING.ip_address),
    url: policy.rules.some((rule) => ruleTargets(rule, 'url')) ? [] : (configured?.url ?? DEFAULT_NON_IDENTIFYING.url),
  });
  RESOLVED.set(policy, resolved);
  return resolved;
}

// ---- the release decision -----------------------------------------------------------------

/**
 * True when the policy releases this detection: an address or URL of a class that identifies no
 * one. `text` is the text the detection was found in (a URL given as someone's address is theirs).
 */
export function identifiesNoOne(
  text: string,
  detection: Pick<Detection, 'type' | 'value' | 'start'>,
  classes: NonIdentifying,
  publicUrls?: Map<string, boolean>,
  ipClasses?: Map<string, IpClass>,
): boolean {
  if (detection.type === 'ip_address') {
    if (classes.ip_address.length === 0) return false;
    // `ipClasses` (one release's classes by value: ipClass depends on the value alone, and the same
    // address repeated in a text is classed once).
    let klass = ipClasses?.get(detection.value);
    if (klass === undefined) {
      klass = ipClass(detection.value);
      ipClasses?.set(detection.value, klass);
    }
    return klass !== 'identifying' && classes.ip_address.includes(klass);
  }
  if (detection.type === 'url') {
    if (!classes.url.includes('public')) return false;
    // `publicUrls` (one release's answers by value: the same URL repeated in a text is judged once).
    let isPublic = publicUrls?.get(detection.value);
    if (isPublic === undefined) {
      isPublic = urlIsPublic(detection.value, (klass) => klass !== 'identifying' && classes.ip_address.includes(klass));
      publicUrls?.set(detection.value, isPublic);
    }
    return isPublic && !urlInPersonalContext(text, detection.start);
  }
  return false;
}

/** The detections without the ones the policy releases (call after every merge, see the header). */
export function dropNonIdentifying<T extends Pick<Detection, 'type' | 'value' | 'start'>>(text: string, detections: T[], classes: NonIdentifying): T[];
export function dropNonIdentifying<T extends Pick<Detection, 'type' | 'value' | 'start'>>(text: string, detections: readonly T[], classes: NonIdentifying): readonly T[];
export function dropNonIdentifying<T extends Pick<Detection, 'type' | 'value' | 'start'>>(text: string, detections: readonly T[], classes: NonIdentifying): readonly T[] {
  if (classes.ip_address.length === 0 && classes.url.length === 0) return detections;
  let kept: T[] | undefined;
  // urlIsPublic depends on the value and the classes only, both fixed here.
  const publicUrls = new Map<string, boolean>();
  const ipClasses = new Map<string, IpClass>();
  for (let index = 0; index < detections.length; index++) {
    const detection = detections[index]!;
    if (identifiesNoOne(text, detection, classes, publicUrls, ipClasses)) kept ??= detections.slice(0, index);
    else kept?.push(detection);
  }
  return kept ?? detections;
}
