// Connection strings whose scheme's `://` is written with escapes (session 16, wave15/evade;
// escaped-scheme.ts): read with the URL punctuation's escapes decoded, reported whole over the run as
// written; the quoted-printable form normalizes to the plain string (text/qp-connection.ts).
import { describe, expect, it } from 'vitest';
import { found, only } from '../../../test/support/detections.js';
import { normalizeValue } from '../token/normalize.js';
import { decodeUrlEscapes } from './escaped-scheme.js';

const PLAIN = 'postgres://admin:S3cretPw9@db.corp.example:5432/app';

describe('connection strings with an escaped scheme read whole', () => {
  it.each([
    ['db postgres=3A//admin:S3cretPw9@db.corp.example:5432/app ok', 'postgres=3A//admin:S3cretPw9@db.corp.example:5432/app'],
    ['db postgres%3A%2F%2Fadmin%3AS3cretPw9%40db%2Ecorp%2Eexample%3A5432%2Fapp ok', 'postgres%3A%2F%2Fadmin%3AS3cretPw9%40db%2Ecorp%2Eexample%3A5432%2Fapp'],
    ['db postgres=3A%2F=2Fadmin%3AS3cretPw9=40db%2Ecorp=2Eexample%3A5432=2Fapp ok', 'postgres=3A%2F=2Fadmin%3AS3cretPw9=40db%2Ecorp=2Eexample%3A5432=2Fapp'],
    ['url: "mysql%3a%2f%2froot%3aS3cretPw9%40db.corp.example/app" ok', 'mysql%3a%2f%2froot%3aS3cretPw9%40db.corp.example/app'],
  ])('%j', (text, value) => {
    expect(only(text, 'connection_string').value).toBe(value);
    expect(found(text).filter(([type]) => type !== 'connection_string')).toEqual([]);
  });

  it('the quoted-printable scheme is one erasure with the plain string', () => {
    expect(only(`db postgres=3A//admin:S3cretPw9@db.corp.example:5432/app ok`, 'connection_string').canonical).toBe(normalizeValue('connection_string', PLAIN, 'US'));
  });
});

describe('escaped URLs with no connection string stay as the scan read them', () => {
  it.each([
    'see https%3A%2F%2Fexample.com%2Fdocs ok',
    'redirect=https%3A%2F%2Fexample.com%2Fcb%3Fx%3D1 ok',
    'ratio 3A/4 and =3A//',
    'color %3A%2F%2F only',
  ])('%j', (text) => {
    expect(found(text).filter(([type]) => type === 'connection_string')).toEqual([]);
  });
});

describe('decodeUrlEscapes', () => {
  it('maps each decoded character back to where its escape starts', () => {
    const text = 'x a%3A=2Fb%zz';
    const { reading, offsets } = decodeUrlEscapes(text, 2, text.length);
    expect(reading).toBe('a:/b%zz');
    expect(offsets).toEqual([2, 3, 6, 9, 10, 11, 12, 13]);
  });
});
