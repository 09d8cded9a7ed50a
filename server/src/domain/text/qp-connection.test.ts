// Quoted-printable escapes in a connection string after its scheme (session 15, wave14/evade2;
// qp-connection.ts): each spelling normalizes to the plain string; the query's own values stay.
import { describe, expect, it } from 'vitest';
import { only } from '../../../test/support/detections.js';
import { normalizeValue } from '../token/normalize.js';
import { decodeQpConnection } from './qp-connection.js';

const PLAIN = 'postgres://admin:s3cretPw@db.example.com:5432/app';

describe('connection strings with quoted-printable escapes after the scheme', () => {
  it.each([
    'db postgres://admin=3As3cretPw=40db.example.com:5432/app ok',
    'db postgres://admin:s3cretPw=40db.example.com=3A5432/app ok',
    'db postgres:=2F=2Fadmin=3As3cretPw=40db.example.com:5432=2Fapp ok',
  ])('%j', (text) => {
    expect(only(text, 'connection_string').canonical).toBe(normalizeValue('connection_string', PLAIN, 'US'));
  });

  it('decodes `=3D` in the userinfo, and nothing in the query', () => {
    expect(decodeQpConnection('redis://:pa=3Dss=40cache:6379/0?timeout=40&x=3D')).toBe('redis://:pa=ss@cache:6379/0?timeout=40&x=3D');
  });

  it('leaves values with no scheme, and other escapes, as written', () => {
    expect(decodeQpConnection('admin=3Asecret=40db')).toBe('admin=3Asecret=40db');
    expect(decodeQpConnection('postgres://admin:s=41b@db/app')).toBe('postgres://admin:s=41b@db/app');
  });
});
