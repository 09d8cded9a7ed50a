// Spelled-out e-mail addresses (email-spelled.ts): the forms people write against harvesters are
// addresses, one token with the plain address (same normalized value), while "look at
// example.com" and other everyday "at" stay prose.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { unspellEmail } from './email-spelled.js';
import { detectAll } from './index.js';

function emails(text: string): string[] {
  return detectAll(text, {})
    .filter((d) => d.type === 'email' && d.confidence >= 0.5)
    .map((d) => d.value);
}

describe('spelled-out e-mail addresses', () => {
  it.each([
    ['write to jane.roe [at] corp [dot] example please', 'jane.roe [at] corp [dot] example'],
    ['mail jane.roe(at)corp.example.', 'jane.roe(at)corp.example'],
    ['mail jane.roe (at) corp (dot) example', 'jane.roe (at) corp (dot) example'],
    ['reach me: jane.roe @ corp.example', 'jane.roe @ corp.example'],
    ['reach me at jane dot roe at corp dot example, thanks', 'jane dot roe at corp dot example'],
    ['contact JANE.ROE {AT} CORP {DOT} CO {DOT} UK', 'JANE.ROE {AT} CORP {DOT} CO {DOT} UK'],
    ['jörg [at] bücher [dot] de', 'jörg [at] bücher [dot] de'],
    // The words for "@" and "." in other languages.
    ['escríbeme a juan arroba empresa punto com', 'juan arroba empresa punto com'],
    ['schreib an hans ät firma punkt de', 'hans ät firma punkt de'],
    ['mail: jean arobase societe point fr', 'jean arobase societe point fr'],
    ['scrivi a mario chiocciola azienda punto it', 'mario chiocciola azienda punto it'],
    ['mail jan apenstaartje bedrijf punt nl', 'jan apenstaartje bedrijf punt nl'],
    ['jan (małpa) firma (kropka) pl', 'jan (małpa) firma (kropka) pl'],
    ['juan arroba empresa.com', 'juan arroba empresa.com'],
    ['maria (arroba) empresa (ponto) com (ponto) br', 'maria (arroba) empresa (ponto) com (ponto) br'],
    // A space on one side of the "@", or around the local part's dots.
    ['mail john.doe@ corp.example now', 'john.doe@ corp.example'],
    ['mail john_doe @corp.example now', 'john_doe @corp.example'],
    ['mail j.doe42 @corp.example', 'j.doe42 @corp.example'],
    ['mail john . doe @ corp . example now', 'john . doe @ corp . example'],
    ['mail john.doe@\tcorp.co.uk', 'john.doe@\tcorp.co.uk'],
    ['mail jan(a)firma.fi or', 'jan(a)firma.fi'],
    ['mail jan.kowalski[a]firma.pl', 'jan.kowalski[a]firma.pl'],
    // A bare "at" before a written domain, when the local part is no word of prose.
    ['email me: john.doe at gmail.com', 'john.doe at gmail.com'],
    ['write john_doe at corp.example thanks', 'john_doe at corp.example'],
    ['Copyright (C) 2020 Petr Novak <petr.novak at atlas.cz>', 'petr.novak at atlas.cz'],
    ['reach jdoe42 AT corp.co.uk', 'jdoe42 AT corp.co.uk'],
    // One character at a time.
    ['mail j o h n @ c o r p . e x a m p l e now', 'j o h n @ c o r p . e x a m p l e'],
    ['write j . d o e 4 2 @ c o r p . c o . u k .', 'j . d o e 4 2 @ c o r p . c o . u k'],
  ])('finds %j', (text, value) => {
    expect(emails(text)).toEqual([value]);
  });

  it.each([
    'look at example.com for details',
    'we met at home. Then we left',
    'see the docs at docs.python.org',
    'arrive at 10.30 or at noon',
    'price: 3 @ 4.50 each',
    'the cat sat at the mat dot',
    'x = a @ b.T  # matrix product',
    'meet at the park dot',
    'look at the point where it ends', // "point" is a dot word only after a non-English mark
    'meet at noon point blank',
    'una arroba de trigo',
    'ein Punkt at punkt de',
    'follow me @jane.bsky.social for updates',
    'ping @john.smith about the release',
    'install @types/node.js first',
    'end of sentence. jane @ home',
    'choose option (a) config.json or (b) config.yaml',
    'released v1.2 at github.com/org/repo',
    'the file config.yaml at example.com',
    'see docs.python.org at docs.python.org',
    'meet j.smith at noon',
    'Posted by user_1 at 10.30',
    'we were at example.com',
    'call f(a) then g(b) x.y',
    'a b c @ d e f',
    'x y @ z . w 1',
    'the set {a @ b . c}',
  ])('leaves %j alone', (text) => {
    expect(emails(text)).toEqual([]);
  });

  it('normalizes to the plain address, so both spellings share a token', () => {
    expect(unspellEmail('jane dot roe [at] corp [dot] example')).toBe('jane.roe@corp.example');
    for (const spelled of [
      'jane.roe [at] corp [dot] example', 'Jane.Roe(at)Corp.Example', 'jane.roe @ corp.example', 'jane dot roe at corp dot example',
      'jane punto roe arroba corp punto example', 'jane.roe (arobase) corp (point) example',
      'jane.roe@ corp.example', 'jane.roe @corp.example', 'jane . roe @ corp . example', 'jane.roe(a)corp.example',
      'j a n e . r o e @ c o r p . e x a m p l e',
      'jane.roe at corp.example',
    ]) {
      expect(normalizeValue('email', spelled)).toBe(normalizeValue('email', 'jane.roe@corp.example'));
    }
  });
});
