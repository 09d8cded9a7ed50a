// What the output guard flags by type risk and context (risk.ts), and what the stream may still
// hold back (growingStart): one case per rule of the table in docs/api.md (Output guard).
import { describe, expect, it } from 'vitest';
import { growingStart } from './output.js';
import { flagsByRisk, isReservedIp, ruleForLevel } from './risk.js';

function flags(type: string, value: string, text = value, level: 'critical' | 'high' | 'medium' | 'low' = 'high', mode: 'strict' | 'permissive' = 'strict'): boolean {
  const start = text.indexOf(value);
  return flagsByRisk({ type, value, start, end: start + value.length }, text, level, mode);
}

describe('flagsByRisk', () => {
  it('levels: critical and high always, medium in strict mode with personal context, low never', () => {
    expect(ruleForLevel('critical')).toBe('always');
    expect(ruleForLevel('high')).toBe('always');
    expect(ruleForLevel('medium')).toBe('context');
    expect(ruleForLevel('low')).toBe('never');
    expect(flags('vin', '1HGCM82633A004352', 'the VIN is 1HGCM82633A004352', 'medium')).toBe(false);
    expect(flags('vin', '1HGCM82633A004352', 'her car, VIN 1HGCM82633A004352', 'medium')).toBe(true);
    expect(flags('vin', '1HGCM82633A004352', 'her car, VIN 1HGCM82633A004352', 'medium', 'permissive')).toBe(false);
    expect(flags('fr_siren', '732829320', 'SIREN 732829320 (her company)', 'low')).toBe(false);
  });

  it('e-mail: role and placeholder mailboxes pass, personal ones and free-mail ones do not', () => {
    expect(flags('email', 'security@python.org')).toBe(false);
    expect(flags('email', 'no-reply@github.com')).toBe(false);
    expect(flags('email', 'user@example.com')).toBe(false);
    expect(flags('email', 'jane.doe@example.com')).toBe(true);
    expect(flags('email', 'mallory.abuse@evil.example')).toBe(true);
    expect(flags('email', 'support@gmail.com')).toBe(true);
  });

  it('phone: toll-free and freephone numbers pass', () => {
    expect(flags('phone', '1-800-275-2273')).toBe(false);
    expect(flags('phone', '+44 808 157 0192')).toBe(false);
    expect(flags('phone', '0800 123 4567')).toBe(false);
    expect(flags('phone', '(636) 452-0852')).toBe(true);
    expect(flags('phone', '080807 37779')).toBe(true); // an Indian mobile, not UK 0808
  });

  it('ip_address: reserved addresses never, public ones with personal context only', () => {
    for (const ip of ['10.1.2.3', '127.0.0.1', '172.20.0.5', '192.168.1.1', '203.0.113.7', '255.255.255.0', '::1', 'fe80::1', '2001:db8::1', '::ffff:10.0.0.1']) {
      expect(isReservedIp(ip), ip).toBe(true);
    }
    expect(isReservedIp('81.2.69.160')).toBe(false);
    expect(isReservedIp('2a00:1450:4001::200e')).toBe(false);
    expect(flags('ip_address', '81.2.69.160', 'resolver at 81.2.69.160', 'medium')).toBe(false);
    expect(flags('ip_address', '81.2.69.160', 'my home IP is 81.2.69.160', 'medium')).toBe(true);
    expect(flags('ip_address', '192.168.1.1', 'my router is 192.168.1.1', 'medium')).toBe(false);
  });

  it('url: only with a credential, in either mode', () => {
    expect(flags('url', 'https://docs.python.org/3/whatsnew/3.12.html', undefined, 'medium')).toBe(false);
    expect(flags('url', 'https://admin:s3cr3tPw@db.corp.example/x', undefined, 'medium', 'permissive')).toBe(true);
    expect(flags('url', 'https://api.example.com/v1?access_token=ya29a0AfH6SM', undefined, 'medium')).toBe(true);
    expect(flags('url', 'https://api.example.com/v1?key=YOUR_API_KEY', undefined, 'medium')).toBe(false);
  });

  it('date: only with birth context, in strict mode', () => {
    expect(flags('date', 'October 2, 2023', 'released on October 2, 2023', 'medium')).toBe(false);
    expect(flags('date', '12/03/1980', 'she was born on 12/03/1980', 'medium')).toBe(true);
    expect(flags('date', '12/03/1980', 'Geburtsdatum: 12/03/1980', 'medium')).toBe(true);
    expect(flags('date', '12/03/1980', '12/03/1980 (DOB)', 'medium')).toBe(true);
    expect(flags('date', '12/03/1980', 'born on 12/03/1980', 'medium', 'permissive')).toBe(false);
  });

  it('credentials: placeholders from documentation pass', () => {
    expect(flags('api_key', 'AKIAIOSFODNN7EXAMPLE', undefined, 'critical')).toBe(false);
    expect(flags('password', 'some-password', undefined, 'critical')).toBe(false);
    expect(flags('password', 'Rp34s!BGt4AZ', undefined, 'critical')).toBe(true);
    expect(flags('connection_string', 'postgresql://app:x9!Kq2#pL@mongo0.example.net/db', undefined, 'critical')).toBe(true);
    expect(flags('connection_string', 'postgresql://app:changeme@localhost/db', undefined, 'critical')).toBe(false);
  });
});

describe('growingStart', () => {
  it('holds the last run while it can grow, and digit groups written with single spaces', () => {
    // One word without digits before the groups is held with them ("March 3", "at 555 0134").
    expect(growingStart('Sure, the card is 4111 1111')).toBe('Sure, the card '.length);
    expect(growingStart('Sure, the card is 4111 1111 ')).toBe('Sure, the card '.length);
    expect(growingStart('The IBAN DE89 3704 0044')).toBe('The '.length);
    expect(growingStart('born on 3 March')).toBe('born '.length);
    expect(growingStart('write to mallory@ev')).toBe('write to '.length);
    expect(growingStart('Sure, here it is. ')).toBe('Sure, here it is. '.length);
    expect(growingStart('Sure,')).toBe(0);
    expect(growingStart('ok }}4111 1111')).toBe('ok }}'.length);
    expect(growingStart('key:\n-----BEGIN PRIVATE KEY-----\nMIIE\nabc ')).toBe('key:\n'.length);
  });
});
