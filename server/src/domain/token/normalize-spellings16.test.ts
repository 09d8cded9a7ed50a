// Session 16 (lead): the spellings wave15/evade's readers detect share the plain value's canonical
// form, so each is one token with it and revoking the plain value erases them (decisions.md
// section 3). Each case is detected by the built-in scan in a sentence, and its canonical form is
// compared with the plain value's; the negatives check that a valid plain value keeps its form.
import { describe, expect, it } from 'vitest';
import { only } from '../../../test/support/detections.js';
import { decodeQpConnection } from '../text/qp-connection.js';
import { normalizeValue } from './normalize.js';

describe('spellings of session 16 normalize as the plain value', () => {
  it.each([
    ['email', 'email me at jane.d\n    oe16@corp.example today', 'jane.doe16@corp.example'],
    ['connection_string', 'db postgres://admin:S3cretPw\n    16@db.corp.example:5432/app ok', 'postgres://admin:S3cretPw16@db.corp.example:5432/app'],
    ['connection_string', 'db postgres://admin:S3cretPw\r\n16@db.corp.example:5432/app ok', 'postgres://admin:S3cretPw16@db.corp.example:5432/app'],
    ['connection_string', 'db postgres%3A%2F%2Fadmin%3AS3cretPw16%40db%2Ecorp%2Eexample%3A5432%2Fapp ok', 'postgres://admin:S3cretPw16@db.corp.example:5432/app'],
    ['connection_string', 'db postgres=3A%2F=2Fadmin%3AS3cretPw16=40db%2Ecorp=2Eexample%3A5432=2Fapp ok', 'postgres://admin:S3cretPw16@db.corp.example:5432/app'],
    ['uk_nino', 'my NI number is ABl23456C thanks', 'AB123456C'],
    ['es_dni', 'DNI l2345678Z gracias', '12345678Z'],
  ] as const)('%s %j', (type, text, plain) => {
    const found = only(text, type);
    expect(found.canonical).toBe(normalizeValue(type, plain, 'US'));
  });

  it('keeps a valid id, its own look-alike letters and a plain string\'s percent escapes as they were', () => {
    // A DNI's check letter `L` written in lower case stays a letter; a NINO's prefix letters stay.
    expect(normalizeValue('es_dni', '12345678l')).toBe('12345678L');
    expect(normalizeValue('uk_nino', 'OL 12 34 56 D')).toBe('OL123456D');
    expect(normalizeValue('es_nie', 'X1234567L')).toBe('X1234567L');
    expect(normalizeValue('es_nie', 'Xl234567L')).toBe('X1234567L');
    // `%40` in a plain string's password is that password's own encoding.
    expect(decodeQpConnection('postgres://admin:p%40ss@db/app')).toBe('postgres://admin:p%40ss@db/app');
    // A quoted-printable scheme keeps session 15's reading (the query's own values stay).
    expect(decodeQpConnection('redis=3A//:pa=3Dss=40cache:6379/0?x=3D')).toBe('redis://:pa=ss@cache:6379/0?x=3D');
    // Separators inside the digits of a plain id change nothing.
    expect(normalizeValue('uk_nino', 'ab 12 34 56 c')).toBe('AB123456C');
  });
});
