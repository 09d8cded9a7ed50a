// Two detection classes found by the output-guard leak corpus (issue 18 item 8): a value that
// starts a CSV field right after a number ("…0134,4935 4618 4467 1574") is not a thousands group
// of that number, and a connection string whose password was written without percent-encoding
// ('#', '?') still carries a credential.
import { describe, expect, it } from 'vitest';
import { detectAll } from './index.js';

const found = (text: string) => detectAll(text).map((item) => [item.type, item.value]);

describe('a comma continues a number only before a thousands group', () => {
  it('finds each field of a CSV row', () => {
    expect(found('Lori Davis,+1 212 555 0134,4935 4618 4467 1574')).toEqual([
      ['phone', '+1 212 555 0134'],
      ['credit_card', '4935 4618 4467 1574'],
    ]);
  });

  it('still reads 1,234,567 as one number, not as values', () => {
    expect(found('revenue 1,234,567 and 12,345,678 units')).toEqual([]);
  });
});

describe('connection strings with an unencoded password', () => {
  it('keeps the credential when the password holds # or ?', () => {
    expect(found('DATABASE_URL=mongodb+srv://app:FC3QL4#ZTVW@10.0.4.17/app?retryWrites=true')).toEqual([
      ['connection_string', 'mongodb+srv://app:FC3QL4#ZTVW@10.0.4.17/app?retryWrites=true'],
    ]);
    expect(found('mysql://admin:zdLaFa?ZiPK@db.internal.corp:3306/crm')).toEqual([['connection_string', 'mysql://admin:zdLaFa?ZiPK@db.internal.corp:3306/crm']]);
  });

  it('a query with an @ after the path is not a userinfo', () => {
    expect(found('postgres://db.internal.corp/app?owner=a:b@c').map(([type]) => type)).not.toContain('connection_string');
  });
});
