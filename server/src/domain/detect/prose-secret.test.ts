// Credentials given in a sentence (prose-secret.ts): found in the phrasings people type in chat,
// in several languages, quoted or not; prose about passwords, keys and tokens is left alone; and
// a flood of anchors stays linear (adversarial.test.ts holds the timing-free size checks).
import { describe, expect, it } from 'vitest';
import { detectAll } from './index.js';

function found(text: string): [string, string][] {
  return detectAll(text, {})
    .filter((d) => d.confidence >= 0.5 && (d.type === 'password' || d.type === 'api_key'))
    .map((d) => [d.type, d.value]);
}

describe('credentials in prose', () => {
  it.each([
    ['my password is hunter2', 'hunter2'],
    ['My password is Tr0ub4dor&3 ok', 'Tr0ub4dor&3'],
    ['my gmail password is now Summer2024!', 'Summer2024!'],
    ['The password for the staging server is Xk9#mL2$pQ.', 'Xk9#mL2$pQ'],
    ['password for gmail: qwerty123', 'qwerty123'],
    ['the wifi password is "correct horse battery staple"', 'correct horse battery staple'],
    ['Passwort ist Geheim123!', 'Geheim123!'],
    ['Das Kennwort lautet Sommer2023', 'Sommer2023'],
    ['la contraseña es Perro#2020', 'Perro#2020'],
    ['mon mot de passe est Soleil2024', 'Soleil2024'],
    ['a senha é Abc12345', 'Abc12345'],
    ['la password è Ciao1234', 'Ciao1234'],
    ['het wachtwoord is Welkom01', 'Welkom01'],
    ['my PIN is 4921', '4921'],
    ['password Xk9#mL2$pQ', 'Xk9#mL2$pQ'],
    ['我的密码是abc123，谢谢', 'abc123'],
    ['我的password是abc123', 'abc123'],
    ['パスワードはPass1234です', 'Pass1234'],
    ['비밀번호는 qwer1234 입니다', 'qwer1234'],
  ])('finds the password in %j', (text, value) => {
    expect(found(text)).toEqual([['password', value]]);
  });

  it.each([
    ['my aws secret key is 9dK2mQ7vLx3Rt8Yp1Zw4Hs6Jb0Nc5Fg2Ae7Ui9Oq', '9dK2mQ7vLx3Rt8Yp1Zw4Hs6Jb0Nc5Fg2Ae7Ui9Oq'],
    ['the api key is Zx81kQm2Lp0Wn7Rt4Yv9Bc3Df6Gh1Jk5', 'Zx81kQm2Lp0Wn7Rt4Yv9Bc3Df6Gh1Jk5'],
    ['use token 9f8e7d6c5b4a39281706f5e4d3c2b1a0 for the API', '9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
    ['AWS secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['the licence key is "A7F3-9KQ2-ZX81-LM4P-0QW7"', 'A7F3-9KQ2-ZX81-LM4P-0QW7'],
  ])('finds the key in %j', (text, value) => {
    expect(found(text)).toEqual([['api_key', value]]);
  });

  it.each([
    'my password is incorrect',
    'The password is required.',
    'your password is at least 12 characters long',
    'the password is the same as before',
    'password is Secret',
    'the key is to keep it simple',
    'the key is 42',
    'my secret is that I love cats',
    'token expired, please log in again',
    'pass 0x1F as the flag',
    'pass v1.2.3 to the installer',
    'the key insight is v2',
    'bypass is 12345 ms',
    'keyboard is 1234',
    'password reset link sent',
    'password: ********',
    'the password is "***"',
    'password=[REDACTED] and the password is (hidden)',
    'the password is <your password>',
    'pin 5 is high',
    'tokenizer is bpe-v2',
  ])('leaves %j alone', (text) => {
    expect(found(text)).toEqual([]);
  });

  it('finds one value once when the key=value reader finds it too', () => {
    expect(found('Here is my key: 9dK2mQ7vLx3Rt8Yp1Zw4Hs6Jb0Nc5Fg2Ae7Ui9Oq')).toEqual([['api_key', '9dK2mQ7vLx3Rt8Yp1Zw4Hs6Jb0Nc5Fg2Ae7Ui9Oq']]);
    expect(found('password: hunter2x and the pin is 1234')).toEqual([
      ['password', 'hunter2x'],
      ['password', '1234'],
    ]);
  });
});
