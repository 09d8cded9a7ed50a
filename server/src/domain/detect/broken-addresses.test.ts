// IP, MAC and wallet addresses broken by a line break (session 15, wave14/evade2; broken-addresses.ts):
// read with the break and the next line's indentation taken out, an IP or MAC address on its word,
// a checksummed wallet on its checksum, an Ethereum address on a wallet word; each spelling is the
// exact slice of the text and normalizes to the plain address.
import { describe, expect, it } from 'vitest';
import { only } from '../../../test/support/detections.js';
import { detectAll } from './index.js';

describe('addresses broken by a line break', () => {
  it.each([
    ['server ip 81.2.\n69.160 please', 'ip_address', '81.2.\n69.160', '81.2.69.160'],
    ['server ip 81.2.69\r\n.160 please', 'ip_address', '81.2.69\r\n.160', '81.2.69.160'],
    ['host 81.2.6\n    9.160 please', 'ip_address', '81.2.6\n    9.160', '81.2.69.160'],
    ['server ip 2a00:1450:4001\n:82a::2011 ok', 'ip_address', '2a00:1450:4001\n:82a::2011', '2a00:1450:4001:82a::2011'],
    ['mac address 00:1A:2B\n:3C:4D:5E ok', 'mac_address', '00:1A:2B\n:3C:4D:5E', '001a2b3c4d5e'],
    ['mac address 00:1A:2B:\r\n  3C:4D:5E ok', 'mac_address', '00:1A:2B:\r\n  3C:4D:5E', '001a2b3c4d5e'],
    ['wallet bc1qar0sr\nrr7xfkvy5l643lydnw9re59gtzzwf5mdq thanks', 'crypto_wallet', 'bc1qar0sr\nrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
    ['pay bc1qar0srrr7xfkvy5l64\r\n    3lydnw9re59gtzzwf5mdq thanks', 'crypto_wallet', 'bc1qar0srrr7xfkvy5l64\r\n    3lydnw9re59gtzzwf5mdq', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
    ['to 1BoatSLRHtKNngkdX\n  EeobR76b53LETtpyT thanks', 'crypto_wallet', '1BoatSLRHtKNngkdX\n  EeobR76b53LETtpyT', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT'],
    ['send to 0x52908400098527886E0\nF7030069857D2E4169EE7 now', 'crypto_wallet', '0x52908400098527886E0\nF7030069857D2E4169EE7', '0x52908400098527886E0F7030069857D2E4169EE7'],
  ])('%j', (text, type, value, canonical) => {
    expect(only(text, type)).toEqual({ value, canonical });
  });
});

describe('line breaks that break no address stay two lines', () => {
  const addresses = (text: string): string[] =>
    detectAll(text)
      .filter((d) => d.confidence >= 0.5 && ['ip_address', 'mac_address', 'crypto_wallet'].includes(d.type))
      .map((d) => `${d.type}[${d.value}]`);
  it.each([
    // No address word before the halves.
    'version 81.2.\n69.160 released',
    'build 00:1A:2B\n:3C:4D:5E done',
    // A wallet-like run whose joined form fails the checksum; an Ethereum-like run with no wallet word.
    'ref bc1qar0sr\nrr7xfkvy5l643lydnw9re59gtzzwf5mdx thanks',
    'hash 0x52908400098527886E0\nF7030069857D2E4169EE7 now',
    // Prose and times.
    'at 10:30\nbe there',
    'version 1.2\nadded the server ip option',
  ])('%j', (text) => {
    expect(addresses(text)).toEqual([]);
  });
});

describe('a line that ends an address keeps it as written: the next line is other text', () => {
  it.each([
    ['server ip 81.2.69.160\n5 servers up', 'ip_address', '81.2.69.160'],
    ['mac address 00:1A:2B:3C:4D:5E\nab cd', 'mac_address', '00:1A:2B:3C:4D:5E'],
  ])('%j', (text, type, value) => {
    expect(only(text, type).value).toBe(value);
  });
});
