// Passwords broken over a line (session 18, wave17/evade; broken-secret.ts): the password the scan
// found is read on over the next line when the line reads as the rest of a value, and each spelling
// is the exact slice of the text and normalizes to the plain password (one token, one erasure).
import { describe, expect, it } from 'vitest';
import { found, only } from '../../../test/support/detections.js';
import { normalizeValue } from '../token/normalize.js';

describe('passwords broken over a line read whole', () => {
  it.each([
    ['my password is Tr0ub4\ndor&3x ok thanks', 'Tr0ub4\ndor&3x', 'Tr0ub4dor&3x'],
    ['my password is Tr0ub4\r\ndor&3x ok thanks', 'Tr0ub4\r\ndor&3x', 'Tr0ub4dor&3x'],
    ['my password is Tr0ub4\n    dor&3x ok thanks', 'Tr0ub4\n    dor&3x', 'Tr0ub4dor&3x'],
    ['password: Hunter\n2!Blue ok thanks', 'Hunter\n2!Blue', 'Hunter2!Blue'],
    ['password: Hunter\n\t2!Blue', 'Hunter\n\t2!Blue', 'Hunter2!Blue'],
    ['db:\n  password: S3cret\n    Xy9\n  port: 5432', 'S3cret\n    Xy9', 'S3cretXy9'],
    ['PASSWORD=hunter2-\n  continued', 'hunter2-\n  continued', 'hunter2-continued'],
    ['export PASSWORD=Tr0ub4\\\n  dor&3x', 'Tr0ub4\\\n  dor&3x', 'Tr0ub4dor&3x'],
    ['secret_token: Xq7Lm2Rt9V\n  b4Kp8Zc3Wn.', 'Xq7Lm2Rt9V\n  b4Kp8Zc3Wn', 'Xq7Lm2Rt9Vb4Kp8Zc3Wn'],
  ])('%j', (text, value, plain) => {
    const hit = only(text, 'password');
    expect(hit.value).toBe(value);
    expect(hit.canonical).toBe(normalizeValue('password', plain));
  });
});

describe('the next line of a config or of prose stays as written', () => {
  it.each([
    ['password: Tr0ub4dor\nport=5432', 'Tr0ub4dor'],
    ['password: Tr0ub4dor\nport: 5432', 'Tr0ub4dor'],
    ['password: Tr0ub4dor\nThanks', 'Tr0ub4dor'],
    ['password: Tr0ub4dor\nThanks,\nBob', 'Tr0ub4dor'],
    ['password: Tr0ub4dor\n2 items left', 'Tr0ub4dor'],
    ["password: Tr0ub4dor\ndon't share it", 'Tr0ub4dor'],
    ['password: Tr0ub4dor\n}', 'Tr0ub4dor'],
    ['password: Tr0ub4dor\n- item two', 'Tr0ub4dor'],
    ['password: Tr0ub4dor \n2!Blue', 'Tr0ub4dor'],
    ['password: Tr0ub4dor\nhttps://example.com/x1', 'Tr0ub4dor'],
    ['password: Tr0ub4dor\n\nX9y!z', 'Tr0ub4dor'],
  ])('%j', (text, value) => {
    expect(found(text).filter(([type]) => type === 'password')).toEqual([['password', value]]);
  });

  it('a value of its own on the next line keeps its type', () => {
    const text = 'password: Tr0ub4dor\n4111111111111111';
    expect(found(text)).toContainEqual(['password', 'Tr0ub4dor']);
    expect(found(text)).toContainEqual(['credit_card', '4111111111111111']);
  });
});

describe('a line continued by a backslash goes on whatever it starts with', () => {
  it('reads the next line after the backslash, and no empty line', () => {
    const hit = only('password: Hunter2\\\n  !Blue ok', 'password');
    expect(hit.value).toBe('Hunter2\\\n  !Blue');
    expect(hit.canonical).toBe(normalizeValue('password', 'Hunter2!Blue'));
    expect(found('password: Hunter2\\\n\nok').filter(([type]) => type === 'password')).toEqual([['password', 'Hunter2\\']]);
  });
});
