// Passphrases of plain words given without quotes after a password word (prose-secret.ts,
// passphraseEnd): "my password is correct horse battery staple" reached the model raw, because a
// value of letters only was read as prose. A run of 3-8 content words that ends the clause is a
// passphrase; what people say about passwords is not.
import { describe, expect, it } from 'vitest';
import { detectAll } from './index.js';

function passwords(text: string): string[] {
  return detectAll(text)
    .filter((entity) => entity.type === 'password')
    .map((entity) => entity.value);
}

describe('passphrases without quotes', () => {
  it.each([
    ['my password is correct horse battery staple', 'correct horse battery staple'],
    ['password: correct horse battery staple', 'correct horse battery staple'],
    ['passphrase: purple monkey dishwasher lamp.', 'purple monkey dishwasher lamp'],
    ['the wifi password is purple monkey dishwasher', 'purple monkey dishwasher'],
    ['The password is: tiger lamp river stone\nthanks', 'tiger lamp river stone'],
    ['my password is correct horse battery staple and I forgot it', 'correct horse battery staple'],
    ['password: Correct Horse Battery Staple', 'Correct Horse Battery Staple'],
    ['mein Passwort ist blaue Katze tanzt', 'blaue Katze tanzt'],
    ['la contraseña es perro azul montaña, gracias', 'perro azul montaña'],
    ['my password is orange rocket seven42 glacier!', 'orange rocket seven42 glacier'],
  ])('finds %j', (text, value) => {
    expect(passwords(text)).toEqual([value]);
  });

  it.each([
    'Password: must be at least 8 characters',
    'password: same as before',
    'my password is the name of my dog',
    'password is case sensitive',
    'password is stored as plain text',
    'Password: minimum eight characters long',
    'the password is incorrect, please try again',
    'password: required field',
    'Your password is too weak',
    'password is hashed with bcrypt before saving',
    'the password is expired and needs a reset',
    'password: see the vault entry',
    'My password is something only I know',
    'password: never share it with anyone',
    'the password is reset every ninety days',
    'password field shows dots instead of letters',
    'Password is generated automatically on first login',
    'the PIN is four digits long',
    'password is shown in plain text here and there in the logs of the service for debugging purposes',
    'api key is stored safely elsewhere',
  ])('leaves %j alone', (text) => {
    expect(passwords(text)).toEqual([]);
  });
});
