// Value normalization before a value is keyed to a token (decisions.md section 3): two spellings
// of the same value ("Alice@Example.com" and "alice@example.com ", "4111 1111 1111 1111" and
// "4111-1111-1111-1111") must get the same token within a session and the same corpus token
// across documents. Revocation digests reuse this so an erased value is erased in every spelling.

/** Keep ASCII digits only. */
function digitsOnly(text: string): string {
  return text.replace(/[^0-9]/g, '');
}

/**
 * Normalize `value` for `type`: NFC and trimmed for every type, then per type:
 * email lowercase; credit_card and us_ssn digits only; phone digits only with a leading `+`
 * kept; iban uppercase letters and digits only; mac_address lowercase hex only; ip_address
 * lowercase. Other types (names, custom types) are NFC and trimmed only: case can carry meaning.
 *
 * When stripping would leave nothing (a "card" with no digits), the NFC-trimmed value is used
 * instead, so two unrelated odd values never collapse onto one empty key.
 */
export function normalizeValue(type: string, value: string): string {
  const base = value.normalize('NFC').trim();
  let normalized: string;
  switch (type) {
    case 'email':
    case 'ip_address':
      return base.toLowerCase();
    case 'credit_card':
    case 'us_ssn':
      normalized = digitsOnly(base);
      break;
    case 'phone': {
      const digits = digitsOnly(base);
      normalized = digits === '' ? '' : base.startsWith('+') ? `+${digits}` : digits;
      break;
    }
    case 'iban':
      normalized = base.toUpperCase().replace(/[^0-9A-Z]/g, '');
      break;
    case 'mac_address':
      normalized = base.toLowerCase().replace(/[^0-9a-f]/g, '');
      break;
    default:
      return base;
  }
  return normalized === '' ? base : normalized;
}
