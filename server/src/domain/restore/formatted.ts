// The `formatted` restore mode: the original full value with deterministic per-type display
// formatting (grouping, case). Values that do not look like their type are only trimmed, so
// formatting never loses or invents characters of a valid value.
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/** Group a digit string in 3s from the left, the last group 4 digits: `4155550100` -> `415 555 0100`. */
function groupNationalDigits(digits: string): string {
  if (digits.length <= 4) return digits;
  const head = digits.slice(0, -4);
  const groups = head.match(/\d{1,3}/g) ?? [];
  return [...groups, digits.slice(-4)].join(' ');
}

function groupsOf(text: string, size: number): string {
  return (text.match(new RegExp(`.{1,${size}}`, 'g')) ?? []).join(' ');
}

function formatPhone(value: string): string {
  if (!/^\+?[\d\s().\-/]+$/.test(value)) return value;
  const digits = value.replace(/\D/g, '');
  if (digits.length < 5) return value;
  if (value.startsWith('+')) {
    const parsed = parsePhoneNumberFromString(value);
    return parsed !== undefined ? parsed.formatInternational() : `+${groupNationalDigits(digits)}`;
  }
  return groupNationalDigits(digits);
}

function formatCard(value: string): string {
  const digits = value.replace(/[\s-]/g, '');
  return /^\d{12,19}$/.test(digits) ? groupsOf(digits, 4) : value;
}

function formatIban(value: string): string {
  const compact = value.replace(/\s/g, '').toUpperCase();
  return /^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/.test(compact) ? groupsOf(compact, 4) : value;
}

function formatSsn(value: string): string {
  if (!/^[\d\s-]+$/.test(value)) return value;
  const digits = value.replace(/\D/g, '');
  return digits.length === 9 ? `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}` : value;
}

function formatMac(value: string): string {
  if (!/^[0-9a-fA-F:.\-\s]+$/.test(value)) return value;
  const hex = value.replace(/[^0-9a-fA-F]/g, '').toLowerCase();
  return hex.length === 12 ? groupsOf(hex, 2).replaceAll(' ', ':') : value;
}

/** Render the full value with its type's display format. */
export function formatValue(type: string, value: string): string {
  const trimmed = value.trim();
  switch (type) {
    case 'phone':
      return formatPhone(trimmed);
    case 'credit_card':
      return formatCard(trimmed);
    case 'iban':
      return formatIban(trimmed);
    case 'us_ssn':
      return formatSsn(trimmed);
    case 'email':
      return trimmed.toLowerCase();
    case 'mac_address':
      return formatMac(trimmed);
    case 'swift_bic':
      return trimmed.toUpperCase();
    default:
      return trimmed;
  }
}
