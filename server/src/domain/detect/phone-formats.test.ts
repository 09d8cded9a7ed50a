// Phone numbers as generators and people write them (session 16, tools/phone-formats): a country
// code in parentheses ("(+30) 6946 223059"), an area code in parentheses glued to the country code
// ("+1(212)555-0143"), and a number after a calling verb and the one to call ("You can reach Mei
// Tanaka at 5308507537"). Each class is checked with its negatives: the same shapes that are not
// phone numbers stay unprotected.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { detectAll } from './index.js';

const phones = (text: string): string[] =>
  detectAll(text).filter((entity) => entity.confidence >= 0.5 && entity.type === 'phone').map((entity) => entity.value);

describe('a country code in parentheses', () => {
  it('is part of the number, with or without a space after it', () => {
    expect(phones('Ask Raj Patel on (+30) 6946 223059 before Friday.')).toEqual(['(+30) 6946 223059']);
    expect(phones('Tom Reyes ((+57)3011832288) will bring the slides.')).toEqual(['(+57)3011832288']);
    expect(phones('phone (+44) 20 7946 0958')).toEqual(['(+44) 20 7946 0958']);
    expect(phones('Office\n(+49) 30 1234567\n')).toEqual(['(+49) 30 1234567']);
  });

  it('normalizes like the plain international form', () => {
    expect(normalizeValue('phone', '(+44) 20 7946 0958')).toBe(normalizeValue('phone', '+44 20 7946 0958'));
  });

  it('is not read into a formula or a short code', () => {
    expect(phones('f(+1)(2) = 3')).toEqual([]);
    expect(phones('the offset (+12) was applied')).toEqual([]);
  });
});

describe('an area code in parentheses glued to the country code', () => {
  it('is read as one international number, an extension included', () => {
    expect(phones('+1(212)555-0143')).toEqual(['+1(212)555-0143']);
    expect(phones('call +1(555)123-4567 today')).toEqual(['+1(555)123-4567']);
    expect(phones('Call +44(20)79460958')).toEqual(['+44(20)79460958']);
    expect(phones('My phone number is +90(722)197-6584x4900, call after 5.')).toEqual(['+90(722)197-6584x4900']);
  });
});

describe('a calling verb, the one to call and "at" or "on"', () => {
  it('labels a number that no numbering plan confirms', () => {
    expect(phones('You can reach Mei Tanaka at 5308507537.')).toEqual(['5308507537']);
    expect(phones('You can reach Jonas Berg at 0883449907.')).toEqual(['0883449907']);
    expect(phones('Call the front desk at 2125550143 today.')).toEqual(['2125550143']);
    expect(phones('reach john smith at 2125550143')).toEqual(['2125550143']);
    expect(phones('Contact Mei on 7268658204.')).toEqual(['7268658204']);
  });

  it('does not label numbers without the verb, nor dates, amounts or ids after it', () => {
    expect(phones('Mei Tanaka arrived at 5308507537.')).toEqual([]);
    expect(phones('Call the team on 2024-12-05 about it.')).toEqual([]);
    expect(phones('Contact support at 12.05.2024 or later.')).toEqual([]);
  });
});

// Session 16 (wave15/phone2): a country code in parentheses after the '+', a number a weak NINO
// reading of "at"/"on" hid, and thirteen-digit trunk-prefixed numbers after a phone word.
const types = (text: string): string[] => detectAll(text).filter((entity) => entity.confidence >= 0.5).map((entity) => entity.type);

describe('a country code in parentheses after the plus sign', () => {
  it('starts the number at the plus sign', () => {
    expect(phones('call +(370) 77844699 tomorrow')).toEqual(['+(370) 77844699']);
    expect(phones('Phone: +(44) 20 7946 0958')).toEqual(['+(44) 20 7946 0958']);
    expect(phones('Best regards,\nTom Reyes\n+(371) 66903291')).toEqual(['+(371) 66903291']);
  });

  it('normalizes like the plain international form', () => {
    expect(normalizeValue('phone', '+(44) 20 7946 0958')).toBe(normalizeValue('phone', '+44 20 7946 0958'));
  });

  it('is not read into a formula or a short sum', () => {
    expect(phones('a+(1)(2) = 3')).toEqual([]);
    expect(phones('x+(12) and y')).toEqual([]);
    expect(phones('n+(123)')).toEqual([]);
  });
});

describe('a lower-case NINO reading of "at" or "on" below the threshold', () => {
  it('leaves the digits after it to a phone number after a calling verb', () => {
    expect(phones('You can reach Raj Patel at 85 3131-2421.')).toEqual(['85 3131-2421']);
    expect(phones('Text me on 41 1308-6917 when you land.')).toEqual(['41 1308-6917']);
    expect(phones('Text me on 22 87 10 when you land.')).toEqual(['22 87 10']);
  });

  it('keeps NINOs that are written as NINOs, and labels nothing without a phone word', () => {
    expect(types('ab 12 34 56 c')).toEqual(['uk_nino']);
    expect(types('NI number: AB 12 34 56 C')).toEqual(['uk_nino']);
    expect(phones('We met on 12 03 24 at the office.')).toEqual([]);
    expect(phones('The score stood at 85 31 in the end.')).toEqual([]);
  });
});

describe('thirteen-digit trunk-prefixed numbers (Austria)', () => {
  it('are phone numbers after a phone word when the plan accepts them', () => {
    expect(phones('tel 03515 67258781')).toEqual(['03515 67258781']);
    expect(phones('Please call me at 07448 78298548.')).toEqual(['07448 78298548']);
    expect(phones('Mobile: 0744878298548')).toEqual(['0744878298548']);
  });

  it('are not phone numbers without one', () => {
    expect(phones('Write down 07448 78298548 for Ilse Vos.')).toEqual([]);
    expect(phones('ref 0744878298548')).toEqual([]);
    expect(phones('Order 0744878298548 shipped.')).toEqual([]);
  });
});

// Session 17 (wave16/phone): numbers no numbering plan accepts, written as phones; bare digit
// runs that a sentence cue makes a phone; no piece of a weak NINO reading left after it lost.
const all = (text: string): { type: string; value: string; confidence: number }[] =>
  detectAll(text).map(({ type, value, confidence }) => ({ type, value, confidence }));

describe('numbers no numbering plan accepts, written as phones', () => {
  it('are phones after a phone word or a calling verb, at a lower confidence', () => {
    expect(phones('call +54 9 3859 7059 tomorrow')).toEqual(['+54 9 3859 7059']);
    expect(phones('My phone number is +261 0739258145, call after 5.')).toEqual(['+261 0739258145']);
    expect(phones('Please call me at +350 4504705482.')).toEqual(['+350 4504705482']);
    expect(phones('Phone: 9868791763413')).toEqual(['9868791763413']);
    expect(phones('Please call me at 6559273114620.')).toEqual(['6559273114620']);
    expect(phones('Ask Omar Haddad on +995192831861 before Friday.')).toEqual(['+995192831861']);
    const [found] = detectAll('Phone: 9868791763413').filter((entity) => entity.type === 'phone');
    expect(found?.confidence).toBeGreaterThanOrEqual(0.5);
    expect(found?.confidence).toBeLessThan(0.7);
  });

  it('are phones after a plus sign when grouped as phones are printed', () => {
    expect(phones('Write down +54 9 3514 2310 for Tom Reyes.')).toEqual(['+54 9 3514 2310']);
    expect(phones('Ana Souza\n+54 9 3859 7059')).toEqual(['+54 9 3859 7059']);
  });

  it('are not phones without context: a bare run, thousands, amounts, units, a non-code first group', () => {
    expect(phones('Order 9868791763413 shipped.')).toEqual([]);
    expect(phones('ref 6559273114620')).toEqual([]);
    expect(phones('Write down +261 0739258145 for Raj.')).toEqual([]);
    expect(phones('Revenue grew +12 345 678 this year.')).toEqual([]);
    expect(phones('The balance moved by +54 9 3859 7059 EUR.')).toEqual([]);
    expect(phones('delta +54.9.3859.7059')).toEqual([]);
    expect(phones('Phone: 98687917634139999')).toEqual([]);
  });
});

describe('bare digit runs that a sentence cue makes a phone', () => {
  it('after asking a named person "on" or "at"', () => {
    expect(phones('Ask Mei Tanaka on 33 50 57 before Friday.')).toEqual(['33 50 57']);
    expect(phones('Ask Lena Fischer on 6347461576 before Friday.')).toEqual(['6347461576']);
    expect(phones('Ping Raj at 6364520852.')).toEqual(['6364520852']);
  });

  it('after WhatsApp, SMS or fax as a verb, and before an extension', () => {
    expect(phones('WhatsApp me on 6364520852.')).toEqual(['6364520852']);
    expect(phones('fax it? no: fax me at 6364520852')).toEqual(['6364520852']);
    expect(phones('The desk is 6364520852 ext 12.')).toEqual(['6364520852 ext 12']);
    expect(phones('Desk 6364520852x12 from 9 to 5')).toEqual(['6364520852x12']);
  });

  it('not for dates, times, amounts, ids or counts in the same places', () => {
    expect(phones('Ask Tom on 12 03 24 about it.')).toEqual([]);
    expect(phones('Text me on 12 03 2024 when you land.')).toEqual([]);
    expect(phones('Ask Tom about 6364520852.')).toEqual([]);
    expect(phones('ask the team on 6364520852')).toEqual([]);
    expect(phones('Write down 7776637064 for Raj.')).toEqual([]);
    expect(phones('Omar Haddad - 0920425141')).toEqual([]);
    expect(phones('Ask Mei on Monday at 10.')).toEqual([]);
    expect(phones('Ring size 6364520852.')).toEqual([]);
    expect(phones('1920x1080 and 6364520852')).toEqual([]);
  });
});

describe('a weak NINO reading that lost its digits to a phone', () => {
  it('leaves no piece of itself, at any threshold', () => {
    expect(all('You can reach Raj Patel at 85 3131-2421.')).toEqual([{ type: 'phone', value: '85 3131-2421', confidence: 0.65 }]);
    expect(all('Text me on 22 87 10 when you land.').map((entity) => entity.type)).toEqual(['phone']);
  });

  it('stays when nothing stronger took its digits', () => {
    expect(all('We met on 12 03 24 at the office.')).toEqual([{ type: 'uk_nino', value: 'on 12 03 24', confidence: 0.4 }]);
    expect(types('ab 12 34 56 c')).toEqual(['uk_nino']);
  });
});

describe('a long number after an id label that reads as "my number"', () => {
  it('stays an id (Japan\'s My Number), not a phone no plan accepts', () => {
    expect(phones('My Number: 9725 4024 9292')).toEqual([]);
    expect(phones('Please update the record: My Number 193192569339, thanks.')).toEqual([]);
    expect(phones('my number is 4003787685670')).toEqual(['4003787685670']);
  });
});

describe('spaced pairs that read as a date', () => {
  it('are a date after "on" or "at", a phone right after a phone label', () => {
    expect(phones('Text me on 12 03 2024 when you land.')).toEqual([]);
    expect(phones('call 31 07 20 tomorrow')).toEqual(['31 07 20']);
    expect(phones('Phone: 31 07 20')).toEqual(['31 07 20']);
  });
});

// Session 18 (wave17/phone): separators of other keyboards, and short numbers after a phone word.
describe('separators other keyboards and typesetting put between the groups', () => {
  it('read as the ASCII separator they stand for', () => {
    expect(phones('Her phone is 020·7946·0958')).toEqual(['020·7946·0958']);
    expect(phones('Tel: 06·12·34·56·78')).toEqual(['06·12·34·56·78']);
    expect(phones('call 020\u20097946\u20090958 today')).toEqual(['020\u20097946\u20090958']);
    expect(phones('Phone: 020\u20137946\u20130958')).toEqual(['020\u20137946\u20130958']);
    expect(phones('Tel.: 030\u20111234\u20115678')).toEqual(['030\u20111234\u20115678']);
  });

  it('leave a middle-dotted product or thousands figure alone', () => {
    expect(phones('The area is 3·4·5 cubic metres')).toEqual([]);
    expect(phones('Revenue: 12·345·678 EUR')).toEqual([]);
  });
});

describe('short numbers right after a phone word', () => {
  it('are an extension or an in-house number', () => {
    expect(phones('ext. 4587')).toEqual(['4587']);
    expect(phones('call 5-0199 inside the office')).toEqual(['5-0199']);
    expect(phones('Tel. 2 34 56')).toEqual(['2 34 56']);
    expect(phones('My extension is 45871.')).toEqual(['45871']);
    expect(phones('For the help desk dial 4587.')).toEqual(['4587']);
  });

  it('are never read bare, as a year after a verb, a count, a decimal or the start of a longer token', () => {
    expect(phones('We shipped 4587 boxes.')).toEqual([]);
    expect(phones('Room 4587 is on the left.')).toEqual([]);
    expect(phones('Call 2024 a good year.')).toEqual([]);
    expect(phones('call 1-800-FLOWERS')).toEqual([]);
    expect(phones('Text 4587 rows were imported.')).toEqual([]);
    expect(phones('Ring size 4587.')).toEqual([]);
    expect(phones('call 12.50 each')).toEqual([]);
    expect(phones('ring 1000 times')).toEqual([]);
    expect(phones('the cell 4587 is empty')).toEqual([]);
  });
});

describe('a local number typed with spaces and dashes mixed', () => {
  it('is a phone right after a phone label, never with dots mixed in or without the label', () => {
    expect(phones('Please call me at 62 75 08-49.')).toEqual(['62 75 08-49']);
    expect(phones('Tel: 53-4100 7265')).toEqual(['53-4100 7265']);
    expect(phones('call me at 10.30-11.45')).toEqual([]);
    expect(phones('Mobile: 12 2024-05')).toEqual([]);
    expect(phones('Tel: 12 05-2024')).toEqual([]);
    expect(phones('We met 62 75 08-49 times')).toEqual([]);
  });
});

// Session 19 (wave18/phone): extensions a dialling verb names alone.
describe('an extension written alone after a dialling verb', () => {
  it('is a phone with "ext" or "extension" between the verb and 2-3 digits', () => {
    expect(phones('dial ext 12')).toEqual(['12']);
    expect(phones('Call ext. 305 for billing.')).toEqual(['305']);
    expect(phones('please ring me on extension 42 tomorrow')).toEqual(['42']);
  });

  it('is never the extension word alone, a count or a file suffix', () => {
    expect(phones('ext 12')).toEqual([]);
    expect(phones('See ext 12 of the form.')).toEqual([]);
    expect(phones('the ext 305 field')).toEqual([]);
    expect(phones('dial 12')).toEqual([]);
    expect(phones('call ext 12 times')).toEqual([]);
    expect(phones('Call ext. 3.5 now')).toEqual([]);
  });
});

describe('a German area code before a slash with spaces around it', () => {
  it('is one national number, with or without a phone word', () => {
    expect(phones('Phone: 040 / 4131343')).toEqual(['040 / 4131343']);
    expect(phones('Lena Fischer - 0221 / 6994233')).toEqual(['0221 / 6994233']);
    expect(phones('You can reach Omar Haddad at 089 / 26241636.')).toEqual(['089 / 26241636']);
  });

  it('is never a fraction, a date or a ratio', () => {
    expect(phones('The score was 05 / 2024 overall.')).toEqual([]);
    expect(phones('We sold 120 / 4131343 units')).toEqual([]);
    expect(phones('Ratio 3 / 4131343')).toEqual([]);
    expect(phones('Pages 040 / 413 of the report')).toEqual([]);
  });
});
