// Values that identify no one (identifying.ts): the IP classes by range, which URL parts make a
// URL personal or secret, the policy's classes (defaults, an empty list, deny and value rules),
// and the drop after the merge.
import { DEFAULT_POLICY, type Policy } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { urlCarriesCredential } from '../guard/risk.js';
import { DEFAULT_NON_IDENTIFYING, dropNonIdentifying, identifiesNoOne, ipClass, nonIdentifyingFor, NONE_RELEASED, urlInPersonalContext, urlIsPublic } from './identifying.js';

describe('ipClass', () => {
  it.each([
    ['127.0.0.1', 'special_purpose'],
    ['0.0.0.0', 'special_purpose'],
    ['169.254.169.254', 'special_purpose'],
    ['192.0.2.44', 'special_purpose'],
    ['198.51.100.7', 'special_purpose'],
    ['203.0.113.9', 'special_purpose'],
    ['198.18.0.1', 'special_purpose'],
    ['224.0.0.251', 'special_purpose'],
    ['255.255.255.255', 'special_purpose'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.1.1', 'private'],
    ['8.8.8.8', 'identifying'],
    ['81.2.69.160', 'identifying'],
    ['172.32.0.1', 'identifying'],
    ['::1', 'special_purpose'],
    ['[::1]', 'special_purpose'],
    ['::', 'special_purpose'],
    ['fe80::1%eth0', 'special_purpose'],
    ['ff02::1', 'special_purpose'],
    ['2001:db8::1', 'special_purpose'],
    ['3fff::1', 'special_purpose'],
    ['fd00::1', 'private'],
    ['fc00::5:1', 'private'],
    // A unique local address with a global id names one site (RFC 4193: the id is random).
    ['fd12:3456:789a::1', 'identifying'],
    ['fd5c:de33:f12b:abd0:afb7:2ae7:fcf:36a4', 'identifying'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:8.8.8.8', 'identifying'],
    ['2a00:1450:4001:82a::200e', 'identifying'],
  ])('%s is %s', (value, klass) => {
    expect(ipClass(value)).toBe(klass);
  });

  it('an interface id that embeds a MAC address (EUI-64) identifies a device in any range', () => {
    expect(ipClass('fe80::21a:2bff:fe3c:4d5e')).toBe('identifying');
    expect(ipClass('fd00::21a:2bff:fe3c:4d5e')).toBe('identifying');
    expect(ipClass('2001:db8::21a:2bff:fe3c:4d5e')).toBe('identifying');
  });
});

describe('urlIsPublic', () => {
  const released = (klass: string) => klass !== 'identifying';

  it.each([
    'https://docs.python.org/3/library/asyncio.html',
    'https://linux.die.net/man/2/nice',
    'https://github.com/fastify/fastify/pull/862',
    'https://github.com/psf/requests/commit/0a1b2c3d4e5f60718293a4b5c6d7e8f901234567',
    'http://zlib.net/manual.html#Advanced',
    'https://www.npmjs.com/package/@types/node',
    'https://stackoverflow.com/questions/12345678/how-to-parse-json',
    'https://developer.mozilla.org/en-US/docs/Web/API/XMLHttpRequest',
    'https://docs.spring.io/javadoc-api/org/springframework/aop/framework/AbstractSingletonProxyFactoryBean.html',
    'https://example.com/blog/2024-01-15-release-notes',
    'https://example.com/search?q=python+asyncio&page=2',
    'http://localhost:3000/api/users',
    'http://127.0.0.1:8000/docs',
    'http://10.0.0.5:8080/',
    'www.example.com/docs',
    'https://example.com',
    'https://api.example.test/v1/items',
    'http://localhost:3000',
    'http://127.0.0.1:8000/',
    'https://ｄｏｃｓ．ｐｙｔｈｏｎ．ｏｒｇ/３/ｌｉｂｒａｒｙ',
    'https://vuejs.org/guide/essentials/routing#simple-routing-from-scratch',
    'https://app.example.com/#/settings/appearance',
    'https://www.google.com/search?q=rust+borrow+checker',
    'https://example.com/lookup/10.0.0.1', // a private address inside identifies no one either
    'https://support.apple.com/en-us/HT201222', // an article id, a NINO only by its bare shape
  ])('%s carries nothing personal or secret', (url) => {
    expect(urlIsPublic(url, released)).toBe(true);
  });

  it.each([
    ['userinfo', 'https://jane@example.com/'],
    ["a site's address on its own (its owner's, like an e-mail domain)", 'https://jane-doe.dev/'],
    ['a bare host', 'http://www.FitBoxer.tn'],
    ['a public IP host', 'https://81.2.69.160/admin'],
    ['an address spelled in the host name', 'http://host-81-2-69-160.isp.example/'],
    ['a private-network host name', 'https://wiki.corp/page'],
    ["a person's page on a shared platform", 'https://jdoe.github.io/blog'],
    ['a tenant subdomain', 'https://acme.atlassian.net/browse/OPS-1'],
    ['a profile site', 'https://www.linkedin.com/in/jane-doe'],
    ['an account page on a code host', 'https://github.com/jdoe'],
    ['a handle', 'https://medium.com/@jdoe/my-post'],
    ['a home directory', 'https://example.com/~jdoe/'],
    ['an id after a person-like collection', 'https://example.com/users/4711'],
    ['a name after a person-like collection', 'https://example.com/profile/john-smith'],
    ['an order number', 'https://shop.example/orders/123'],
    ['an e-mail in the path', 'https://example.com/unsubscribe/jane@example.com'],
    ['a UUID', 'https://example.com/a/550e8400-e29b-41d4-a716-446655440000'],
    ['a share token', 'https://drive.google.com/file/d/1AbCdEfGhIjKlMnOpQrStUvWxYz/view'],
    ['an invitation token', 'https://example.com/go/Xk3Lm9Qp2Rs7Tv5W'],
    ['a long number', 'https://api.example.com/v1/files/4111111111111111'],
    ['a phone number', 'https://example.com/call/+1%20415-555-2671'],
    ['a secret query parameter', 'https://example.com/reset?token=abc'],
    ['a personal query parameter', 'https://example.com/?email=jane%40example.com'],
    ['an id query parameter', 'https://example.com/view?id=42'],
    ['a token in the fragment', 'https://example.com/cb#access_token=eyJhbGciOiJIUzI1NiJ9.x'],
    ['an id in a client-side route', 'https://app.example.com/#/profile/8812'],
    ['a name in a hash-bang route', 'https://app.example.com/#!/users/jane-doe'],
    ['a personal parameter in a client-side route', 'https://app.example.com/#/search?email=jane%40example.com'],
    ['an id after a collection in full-width letters', 'https://ｅｘａｍｐｌｅ．ｃｏｍ/ｕｓｅｒｓ/１２３'],
    ['a map search for an address', 'https://maps.google.com/?q=221B+Baker+Street,+London'],
    ['a place on a search engine\'s map', 'https://www.google.com/maps/place/10+Downing+St'],
    ['a shared map pin', 'https://maps.app.goo.gl/Vb2nX'],
    ['a route on OpenStreetMap', 'https://www.openstreetmap.org/directions?from=52.5,13.4&to=52.52,13.41'],
    // What the detectors find in free text makes a URL personal too, wherever it sits in it.
    ['a card number in a query value with words', 'https://example.com/x?note=card+4111111111111111'],
    ['an SSN inside a path segment', 'https://example.com/records/ssn-078-05-1120'],
    ['an IBAN in a path', 'https://example.com/pay/GB82WEST12345698765432'],
    ['a phone number after a word in a path', 'https://example.com/c/call-415-555-0132'],
    ['a public IP address in a path', 'https://example.com/lookup/81.2.69.160'],
  ])('%s makes %s personal', (_, url) => {
    expect(urlIsPublic(url, released)).toBe(false);
  });

  it('an IP host is public only when its class is released', () => {
    expect(urlIsPublic('http://127.0.0.1:8000/docs', () => false)).toBe(false);
    expect(urlIsPublic('http://localhost:8000/docs', () => false)).toBe(false);
  });
});

function policyWith(extra: Partial<Policy>): Policy {
  return { ...DEFAULT_POLICY, ...extra };
}

describe('nonIdentifyingFor', () => {
  it('releases special-purpose and private addresses and public URLs by default', () => {
    expect(nonIdentifyingFor(undefined)).toEqual({ ip_address: ['special_purpose', 'private'], url: ['public'] });
    expect(nonIdentifyingFor(DEFAULT_POLICY)).toEqual(DEFAULT_NON_IDENTIFYING);
  });

  it('takes the policy setting per type; an empty list protects every value', () => {
    const policy = policyWith({ detection: { non_identifying: { ip_address: ['special_purpose'] } } });
    expect(nonIdentifyingFor(policy)).toEqual({ ip_address: ['special_purpose'], url: ['public'] });
    expect(nonIdentifyingFor(policyWith({ detection: { non_identifying: { ip_address: [], url: [] } } }))).toEqual(NONE_RELEASED);
  });

  it('a deny rule or a value rule that can match the type sees every value of it', () => {
    const tokenize = DEFAULT_POLICY.rules[DEFAULT_POLICY.rules.length - 1]!;
    const deny = policyWith({ rules: [{ name: 'no-links', match: { entity_type: 'url', destination: 'external_llm' }, action: 'deny' }, tokenize] });
    expect(nonIdentifyingFor(deny)).toEqual({ ip_address: ['special_purpose', 'private'], url: [] });
    const value = policyWith({ rules: [{ name: 'lab', match: { entity_types: ['ip_address'], value_pattern: '^10\\.' }, action: 'redact' }, tokenize] });
    expect(nonIdentifyingFor(value)).toEqual({ ip_address: [], url: ['public'] });
    const medium = policyWith({ rules: [{ name: 'medium', match: { protection_level: 'medium' }, action: 'deny' }, tokenize] });
    expect(nonIdentifyingFor(medium)).toEqual(NONE_RELEASED);
    const other = policyWith({ rules: [{ name: 'ssn', match: { entity_type: 'us_ssn' }, action: 'deny' }, { name: 'high', match: { protection_level: 'high' }, action: 'deny' }, tokenize] });
    expect(nonIdentifyingFor(other)).toEqual(DEFAULT_NON_IDENTIFYING);
  });
});

describe('dropNonIdentifying', () => {
  const detection = (type: string, value: string) => ({ type, value, start: 0 });

  it('drops released addresses and public URLs, keeps the rest and other types', () => {
    const all = [
      detection('ip_address', '127.0.0.1'),
      detection('ip_address', '192.168.1.10'),
      detection('ip_address', '81.2.69.160'),
      detection('url', 'https://docs.python.org/3/'),
      detection('url', 'https://example.com/users/4711'),
      detection('email', 'jane@example.com'),
    ];
    expect(dropNonIdentifying('', all, DEFAULT_NON_IDENTIFYING).map((d) => d.value)).toEqual(['81.2.69.160', 'https://example.com/users/4711', 'jane@example.com']);
    const specialOnly = { ip_address: ['special_purpose'] as const, url: [] as const };
    expect(dropNonIdentifying('', all, specialOnly).map((d) => d.value)).toEqual(all.slice(1).map((d) => d.value));
    expect(dropNonIdentifying('', all, NONE_RELEASED)).toBe(all);
  });

  it('judges repeated values as each alone (its addresses classed and URLs judged once per value)', () => {
    const values: [string, string][] = [
      ['ip_address', '127.0.0.1'], ['ip_address', '192.168.10.24'], ['ip_address', '81.2.69.160'], ['ip_address', '[fe80::1%eth0]'],
      ['ip_address', '10.0.0.1:8080'], ['ip_address', '2001:db8::7'], ['ip_address', '8.8.8.8'],
      ['url', 'https://example.org/account'], ['url', 'https://docs.python.org/3/'], ['url', 'https://jdoe.github.io/'], ['email', 'jane@example.com'],
    ];
    const text = 'My homepage: https://example.org/account and docs at https://docs.python.org/3/ from 127.0.0.1 ';
    // A seeded draw of repeated values at starts in and out of a personal context.
    let state = 15;
    const next = (bound: number) => (state = (state * 1103515245 + 12345) % 2147483648) % bound;
    const special = { ip_address: ['special_purpose'] as const, url: ['public'] as const };
    for (let round = 0; round < 50; round++) {
      const list = Array.from({ length: 1 + next(40) }, () => {
        const [type, value] = values[next(values.length)]!;
        return { type, value, start: next(text.length) };
      });
      for (const classes of [DEFAULT_NON_IDENTIFYING, special, NONE_RELEASED]) {
        expect(dropNonIdentifying(text, list, classes)).toEqual(list.filter((one) => !identifiesNoOne(text, one, classes)));
      }
    }
  });

  it('a URL on a private address is public only when private addresses are released', () => {
    const url = detection('url', 'http://10.0.0.5:8080/status');
    expect(identifiesNoOne('', url, DEFAULT_NON_IDENTIFYING)).toBe(true);
    expect(identifiesNoOne('', url, { ip_address: ['special_purpose'], url: ['public'] })).toBe(false);
  });
});

describe('urlInPersonalContext', () => {
  const at = (text: string) => urlInPersonalContext(text, text.indexOf('https://'));

  it.each([
    'Jane Doe\nMail: jane@example.com\nWeb: https://narrow-final.biz/',
    'Website: https://example.org',
    'Homepage (https://example.org)',
    'Check out my blog at https://example.org/posts',
    'Sie finden ihre Webseite: https://example.de',
  ])('%j gives the URL as someone\'s address', (text) => {
    expect(at(text)).toBe(true);
  });

  it.each([
    'See https://docs.python.org/3/library/asyncio.html for details',
    'my notes\nThe docs: https://docs.python.org/3/',
    'The website of the project explains it; docs at https://example.org/docs',
  ])('%j does not', (text) => {
    expect(at(text)).toBe(false);
  });

  it('a public URL in a contact card is kept', () => {
    const text = 'Web: https://narrow-final.biz/about';
    const url = { type: 'url', value: 'https://narrow-final.biz/about', start: 5 };
    expect(identifiesNoOne(text, url, DEFAULT_NON_IDENTIFYING)).toBe(false);
    expect(identifiesNoOne('Docs: https://narrow-final.biz/about', { ...url, start: 6 }, DEFAULT_NON_IDENTIFYING)).toBe(true);
  });
});

describe('agreement with the output guard', () => {
  it.each([
    'https://user:hunter22@example.com/docs/page',
    'https://example.com/docs/page?access_token=Zm9vYmFy',
    'https://example.com/docs/page?X-Amz-Signature=abcdef0123',
    'https://example.com/docs/page?sessionid=a1b2c3',
    'https://example.com/docs/page?client_secret=s3cr3t',
    'https://example.com/docs/page#id_token=eyJ0eXAi.x.y',
  ])('a URL the guard flags as a credential is never public on the way in: %s', (url) => {
    expect(urlCarriesCredential(url)).toBe(true);
    expect(urlIsPublic(url, () => true)).toBe(false);
  });
});
