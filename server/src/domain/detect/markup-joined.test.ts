// Values split by markup that renders as nothing (session 14, wave13/evade; markup-joined.ts,
// text/markup-strip.ts): each is found over its whole span as written (units inside it), its
// canonical form is the plain value's (one token, one erasure), and text where markup stands
// between numbers that prove nothing is left alone.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { chainEnd, jointsInText, stripMarkup, stripMarkupValue } from '../text/markup-strip.js';
import { foundTagged as found } from '../../../test/support/detections.js';

/** The detections of `text` at the reporting threshold, as `type[value]`. */
describe('a value split by markup is read with the markup taken out', () => {
  it.each([
    // The matrix's spellings (tools/evade-matrix/matrix.mjs: markup-b, markup-span, md-bold-mid, concat-js).
    ['DNI 1234<b></b>5678Z ok', 'es_dni', '1234<b></b>5678Z', '12345678Z'],
    ['passport number **9128**03456 ok', 'us_passport', '9128**03456', '912803456'],
    ['mac address 00:1A:2B<b></b>:3C:4D:5E ok', 'mac_address', '00:1A:2B<b></b>:3C:4D:5E', '001a2b3c4d5e'],
    ['mac address <span>00:1A:2B</span><span>:3C:4D:5E</span> ok', 'mac_address', '00:1A:2B</span><span>:3C:4D:5E', '001a2b3c4d5e'],
    ['server ip 2a00:1450:40<b></b>01:82a::200e ok', 'ip_address', '2a00:1450:40<b></b>01:82a::200e', '2a00:1450:4001:82a::200e'],
    ['my password is <span>Tr0ub4</span><span>dor&3x</span> ok', 'password', 'Tr0ub4</span><span>dor&3x', 'Tr0ub4dor&3x'],
    ['DNI "1234" + "5678Z" ok', 'es_dni', '1234" + "5678Z', '12345678Z'],
    [
      'slack xoxb-2417350914-881209441<b></b>2-Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs ok',
      'api_key',
      'xoxb-2417350914-881209441<b></b>2-Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs',
      'xoxb-2417350914-8812094412-Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs',
    ],
    // Spellings of this session's own: comments, BBCode, markdown links, code and strikethrough
    // marks, a tag with attributes, a link's edge inside a grouped number.
    ['SSN 078-05<!-- x -->-1120 ok', 'us_ssn', '078-05<!-- x -->-1120', '078051120'],
    ['DNI 1234[b][/b]5678Z ok', 'es_dni', '1234[b][/b]5678Z', '12345678Z'],
    ['DNI 1234<i>5678Z</i> ok', 'es_dni', '1234<i>5678Z', '12345678Z'],
    ['passport number 9128~~03456 ok', 'us_passport', '9128~~03456', '912803456'],
    ['passport number 9128`03456` ok', 'us_passport', '9128`03456', '912803456'],
    ['passport number 9128<span class="x">03456</span> ok', 'us_passport', '9128<span class="x">03456', '912803456'],
    ['card [41](x)11 1111 1111 1111 ok', 'credit_card', '41](x)11 1111 1111 1111', '4111111111111111'],
    ['card [4111 1111](https://x.example) 1111 1111 ok', 'credit_card', '4111 1111](https://x.example) 1111 1111', '4111111111111111'],
    ['call me at [+1 415 ](x)555 0142 ok', 'phone', '+1 415 ](x)555 0142', '+14155550142'],
    ['email me at [jane.doe@c](x)orp.example ok', 'email', 'jane.doe@c](x)orp.example', 'jane.doe@corp.example'],
    ['send to [1BoatSLRHtKNngkdX](x)EeobR76b53LETtpyT ok', 'crypto_wallet', '1BoatSLRHtKNngkdX](x)EeobR76b53LETtpyT', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT'],
  ])('%s', (text, type, value, canonical) => {
    expect(found(text)).toContain(`${type}[${value}]`);
    expect(normalizeValue(type, value, 'US')).toBe(canonical);
  });
});

describe('markup between numbers that prove nothing is left alone', () => {
  it.each([
    // No value word, no check: a number split by a tag is two numbers.
    'the 1234<b></b>5678Z code',
    'ref 9128**03456 is closed',
    'Version **2024**:12 and <b>10</b>:30 and **Note**: 123<b>4</b>5 items',
    // A link glued to a number in prose, a list of numbers in bold.
    'see [page 12](x)3 and **1** 2 **3**',
    'rows `12`34 and ~~56~~78',
  ])('%s', (text) => {
    expect(found(text)).toEqual([]);
  });
});

describe('the reading (text/markup-strip.ts)', () => {
  it('takes every unit out and maps each character back to the text', () => {
    const text = 'x 12<b>3</b>4[b]5[/b] [6](u)7 "8" + "9" <!-- c -->0';
    const reading = stripMarkup(text, 0, text.length);
    expect(reading.text).toBe('x 12345 67 "89" 0');
    for (let k = 0; k < reading.text.length; k++) expect(text[reading.origin[k]!]).toBe(reading.text[k]);
    expect(reading.origin[reading.text.length]).toBe(text.length);
  });

  it('reads a defanged character and a dash before a line break as themselves', () => {
    expect(stripMarkupValue('jane[.]doe(@)corp')).toBe('jane.doe@corp');
    expect(stripMarkupValue('555-\n0142')).toBe('555-0142');
  });

  it('takes only HTML out of a secret', () => {
    expect(stripMarkupValue('Tr0**ub4</b><b>dor`3x', true)).toBe('Tr0**ub4dor`3x');
    expect(stripMarkupValue('Tr0**ub4</b><b>dor`3x')).toBe('Tr0ub4dor3x');
  });

  it('finds joints inside runs only', () => {
    expect(jointsInText('**bold** and <b>word</b>: and `code`', 8)).toEqual([]);
    const text = '1234<b></b>5678Z and 00:1A<i></i>:2B';
    const joints = jointsInText(text, 8);
    expect(joints.map((at) => text.slice(at, chainEnd(text, at)))).toContain('<b></b>');
    expect(joints.map((at) => text.slice(at, chainEnd(text, at)))).toContain('<i></i>');
  });

  it('keeps a link whose target may hold a value', () => {
    expect(stripMarkup('[41](4111111111111111)11', 0, 24).text).toBe('[41](4111111111111111)11');
  });
});
