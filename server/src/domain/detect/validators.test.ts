// Every validator in validators.ts with values that pass (cross-checked against python-stdnum by
// tools/catalog-cases/crosscheck.py, or published specimen numbers) and look-alikes that must
// fail: a changed check digit, an impossible date, a reserved range, the wrong length.
import { describe, expect, it } from 'vitest';
import * as v from './validators.js';

type Validator = (value: string) => boolean;

const CASES: [name: string, validator: Validator, valid: string[], invalid: string[]][] = [
  ['luhn', v.luhn, ['79927398713', '4111111111111111'], ['79927398710', '4111111111111112', '12a4']],
  ['verhoeff', v.verhoeff, ['2363', '673865239184'], ['2364', '673865239180']],
  ['ean13', v.ean13, ['4006381333931', '7560195353853'], ['4006381333930', '400638133393']],
  ['iso7064Mod11_10', v.iso7064Mod11_10, ['52536084796', '194533271'], ['52536084790', '1']],
  ['abaRoutingValid', v.abaRoutingValid, ['011000015', '021000021', '111000025'], ['011000016', '387789329' /* not a Fed prefix */, '00000000', '000000000']],
  ['usSsnValid', v.usSsnValid, ['123456789', '078051120'], ['000123456', '666123456', '900123456', '123001234', '123450000']],
  ['usItinValid', v.usItinValid, ['912701234', '900501234', '999941234'], ['912891234', '912931234', '812701234', '912491234']],
  ['usEinValid', v.usEinValid, ['123456789', '012345678', '991234567'], ['071234567', '891234567', '001234567', '120000000']],
  ['npiValid', v.npiValid, ['1234567893', '1245319599'], ['1234567890', '3234567893', '123456789']],
  ['mbiValid', v.mbiValid, ['1EG4TE5MK73', '9AA0AA0AA00'], ['0EG4TE5MK73', '1SG4TE5MK73', '1EG4TE5MK7', '12345678901']],
  ['ukNinoValid', v.ukNinoValid, ['AB123456C', 'JG103759A'], ['AB123456E', 'DA123456C', 'GB123456A', 'QQ123456C', 'AB12345C']],
  ['nhsValid', v.nhsValid, ['9434765919', '6172974106'], ['9434765918', '6172974100', '1111111111']],
  ['deTaxIdValid', v.deTaxIdValid, ['86095742719', '52536084796'], ['86095742710', '12345678901', '01234567890', '11145678906']],
  ['frNirValid', v.frNirValid, ['100069496750107', '199065748751763', '185057800608491'], ['100069496750101', '900069496750107', '1000694967501']],
  ['sirenValid', v.sirenValid, ['732829320', '545952350'], ['732829321', '000000000']],
  ['siretValid', v.siretValid, ['73282932000074', '86955441006055', '23569818042712'], ['73282932000075', '86955441006050']],
  ['esDniValid', v.esDniValid, ['12345678Z', '59329484H'], ['12345678A', '1234567Z', 'X1234567L']],
  ['esNieValid', v.esNieValid, ['X1234567L', 'X8445407Z', 'Y1234567X'], ['X1234567A', 'A1234567L', 'X123456L']],
  ['itFiscalCodeValid', v.itFiscalCodeValid, ['RSSMRA85T10A562S', 'CCLMGT32T61C133U'], ['RSSMRA85T10A562A', 'RSSMRA85Z10A562S', 'RSSMRA85T99A562S']],
  ['nlBsnValid', v.nlBsnValid, ['111222333', '807246980'], ['111222334', '000000000', '12345678']],
  ['beNationalNumberValid', v.beNationalNumberValid, ['85073003328', '60091386568', '95050136880'], ['85073003329', '85133003328', '60091386500']],
  ['plPeselValid', v.plPeselValid, ['44051401359', '64071224019', '87122569730'], ['44051401358', '44133101359', '11111111111']],
  ['sePersonnummerValid', v.sePersonnummerValid, ['8112189876', '198112189876', '2203196718'], ['8112189875', '8113189876', '19811218987']],
  ['fiHetuValid', v.fiHetuValid, ['131052-308T', '040497-545D', '010100A123B'.replace('B', 'D')], ['131052-308U', '310252-308T', '131052Q308T']],
  ['dkCprValid', v.dkCprValid, ['0101901234', '3112991234'], ['3201901234', '0113901234', '290299123']],
  ['noFodselsnummerValid', v.noFodselsnummerValid, ['20114007081', '28029715469'], ['20114007000', '32114007081', '11111111111']],
  ['chAhvValid', v.chAhvValid, ['7569217076985', '7560195353853'], ['7569217076986', '7579217076985', '756921707698']],
  ['ptNifValid', v.ptNifValid, ['123456789', '291318606'], ['123456788', '423456789', '12345678']],
  ['iePpsValid', v.iePpsValid, ['1234567T', '1234567TW', '5163605Q'], ['1234567A', '123456T', '5163605A']],
  ['aadhaarValid', v.aadhaarValid, ['234567890124', '673865239184'], ['234567890125', '123456789012', '22222222222']],
  ['inPanValid', v.inPanValid, ['ABCPD1234E', 'AAAFA0000A'.replace('0000', '1234')], ['ABCXD1234E', 'ABCPD12345', 'ABCPD0000E', 'abcpd1234e']],
  ['auTfnValid', v.auTfnValid, ['123456782', '804853544', '81854402'], ['123456783', '804853540', '1234567']],
  ['auMedicareValid', v.auMedicareValid, ['2123456701', '21234567011'], ['2123456711', '1123456701', '2123456700']],
  ['auAbnValid', v.auAbnValid, ['51824753556', '76115868290'], ['51824753557', '01824753556']],
  ['auAcnValid', v.auAcnValid, ['004085616', '749438873'], ['004085617', '749438870']],
  ['sgNricValid', v.sgNricValid, ['S1234567D', 'T1234567J', 'F1234567N', 'G1234567X'], ['S1234567A', 'X1234567D', 'S123456D']],
  ['krRrnValid', v.krRrnValid, ['4207111374111', '6210121296464'], ['4207111374110', '4213111374111']],
  ['krRrnStructureValid', v.krRrnStructureValid, ['4207111374110', '9001011999999'.replace('999999', '234567')], ['4213111374111', '4207111994111']],
  ['cnResidentIdValid', v.cnResidentIdValid, ['11010519491231002X', '440305198311089097'], ['11010519491231002Y', '440305198311089090', '440305198313089097']],
  ['jpMyNumberValid', v.jpMyNumberValid, ['123456789018', '901373234050'], ['123456789017', '901373234051', '12345678901']],
  ['brCpfValid', v.brCpfValid, ['12345678909', '00498858987'], ['12345678900', '11111111111', '1234567890']],
  ['brCnpjValid', v.brCnpjValid, ['11222333000181', '07265153000100'], ['11222333000180', '00000000000000']],
  ['caSinValid', v.caSinValid, ['230344830', '405416140'], ['230344831', '846454286', '000000000']],
  ['mxCurpValid', v.mxCurpValid, ['TYVW721006HSLJBZ72', 'XRPP420623MASQZD03'], ['TYVW721006HSLJBZ70', 'TYVW721306HSLJBZ72', 'TYVW721006QSLJBZ72']],
  ['vinValid', v.vinValid, ['1M8GDM9AXKP042788', '1HGCM82633A004352'], ['1M8GDM9A1KP042788', '1M8GDM9AXKP04278', '1M8GDM9AXKP04278I']],
  ['vinShapeValid', v.vinShapeValid, ['WVWZZZ1JZXW000001', '1M8GDM9AXKP042788'], ['WVWZZZ1JZXW00000O', 'ABCDEFGHJKLMNPRST']],
  ['imeiValid', v.imeiValid, ['490154203237518', '014388666542033'], ['490154203237519', '000000000000000', '49015420323751']],
  ['vatValid', v.vatValid, [
    'ATU42478635', 'BE0307946789', 'DE136695976', 'DK22409670', 'EL364207279', 'ESX1234567L', 'ESA58818501', 'FI38704468', 'FR63841021348',
    'HR86157476228', 'HU19786483', 'IE1234567T', 'IT28330970097', 'LU79606953', 'NL092368657B01', 'PL1003490643', 'PT307120430',
    'SE152309902401', 'SI77357264', 'SK7945010579', 'GB549579733', 'CY12345678A', 'MT12345678',
  ], [
    'ATU42478630', 'BE0307946780', 'DE136695970', 'DK22409671', 'EL364207270', 'ESX1234567A', 'FI38704460', 'FR63841021340', 'HR86157476220',
    'HU19786480', 'IT28330970090', 'LU79606950', 'NL092368650B01', 'PL1003490640', 'PT307120431', 'SE152309902001', 'SI77357260',
    'SK7945010570', 'GB549579730', 'XX123456789', 'CY12345678',
  ]],
];

describe('validators', () => {
  for (const [name, validator, valid, invalid] of CASES) {
    it(`${name} accepts valid values`, () => {
      for (const value of valid) expect(validator(value), value).toBe(true);
    });
    it(`${name} rejects look-alikes`, () => {
      for (const value of invalid) expect(validator(value), value).toBe(false);
    });
  }

  it('dkCprMod11 applies the pre-2007 check on top of the date', () => {
    expect(v.dkCprMod11('0707614285')).toBe(true);
    expect(v.dkCprMod11('0707614286')).toBe(false);
  });

  it('euVatVerdict tells checksum from shape-only formats', () => {
    expect(v.euVatVerdict('DE', '136695976')).toBe('checksum');
    expect(v.euVatVerdict('CZ', '12345678')).toBe('shape');
    expect(v.euVatVerdict('DE', '136695970')).toBeUndefined();
    expect(v.VAT_COUNTRIES.has('EL')).toBe(true);
  });

  it('modDigits handles numbers beyond 2^53', () => {
    expect(v.modDigits('123456789012345678901234567890', 97)).toBe(Number(123456789012345678901234567890n % 97n));
  });
});
