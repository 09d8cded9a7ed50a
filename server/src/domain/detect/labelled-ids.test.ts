// Numbers only their label makes personal (labelled-ids.ts): bank account numbers, card security
// codes and driver's licence numbers right after their label, in several languages; the same
// digits without the label, and labels followed by prose, are left alone.
import { describe, expect, it } from 'vitest';
import { detectAll } from './index.js';

function found(text: string): [string, string][] {
  return detectAll(text, {})
    .filter((d) => d.confidence >= 0.5)
    .map((d) => [d.type, d.value]);
}

describe('labelled identifiers', () => {
  it.each([
    ['account number 000123456789', 'bank_account', '000123456789'],
    ['routing 021000021 account 123456789', 'bank_account', '123456789'],
    ['Acct #: 4455-667788', 'bank_account', '4455-667788'],
    ['sort code 12-34-56, account no. 12345678', 'bank_account', '12345678'],
    ['Kontonummer 1234567890', 'bank_account', '1234567890'],
    ['numéro de compte : 12345678901', 'bank_account', '12345678901'],
    ['número de cuenta es 0123456789', 'bank_account', '0123456789'],
    ['card 4111111111111111 exp 12/26 cvv 123', 'card_security_code', '123'],
    ['CVC: 7373', 'card_security_code', '7373'],
    ['卡的CVV是123', 'card_security_code', '123'],
    ['CVVは123です', 'card_security_code', '123'],
    ['the security code is 482', 'card_security_code', '482'],
    ["driver's license D1234567", 'driver_license', 'D1234567'],
    ['Driving licence number: MORGA657054SM9IJ', 'driver_license', 'MORGA657054SM9IJ'],
    ['DL: S530-4623-1234', 'driver_license', 'S530-4623-1234'],
    ['Führerscheinnummer B072RRE2I55', 'driver_license', 'B072RRE2I55'],
    ['MRN 1234567', 'medical_record_number', '1234567'],
    ['medical record number: A1234567', 'medical_record_number', 'A1234567'],
    ['Patient ID MRN-00012345', 'medical_record_number', 'MRN-00012345'],
    ['Fallnummer 2024-00123', 'medical_record_number', '2024-00123'],
    ['insurance member ID XYZ123456789', 'insurance_id', 'XYZ123456789'],
    ['policy number: 12345678', 'insurance_id', '12345678'],
    ['Versichertennummer A123456780', 'insurance_id', 'A123456780'],
    ['número de póliza 0098765432', 'insurance_id', '0098765432'],
  ])('%j', (text, type, value) => {
    expect(found(text).filter(([t]) => t === type)).toEqual([[type, value]]);
  });

  it.each([
    'account manager 12345678',
    'your account is 12 days old',
    'account 123',
    'account number 000000000',
    'security code 123456 sent by SMS',
    'the cvv is on the back of the card',
    "driver's license expires 2027",
    "driver's license class B",
    'order 000123456789 shipped',
    'cvv2 validation failed',
    'the MRN field is required',
    'patient id 12',
    'policy number format changed',
    'member id must be unique',
  ])('leaves %j alone', (text) => {
    const labelled = ['bank_account', 'card_security_code', 'driver_license', 'medical_record_number', 'insurance_id'];
    expect(found(text).filter(([type]) => labelled.includes(type))).toEqual([]);
  });
});
