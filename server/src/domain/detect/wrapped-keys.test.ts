// Provider keys wrapped over lines by a terminal or a mail client (secrets.ts detectApiKey):
// "sk-proj-…⏎…" and "ghp_…⏎…" reached the model raw (neither half was a key). A key reads on
// over a line break when the next line goes on with a chunk of its alphabet; a word, a short id
// after a whole key, or the next line's own key does not.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { detectAll } from './index.js';

const keys = (text: string): string[] => detectAll(text).filter((entity) => entity.type === 'api_key').map((entity) => entity.value);

const GHP = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
const PROJ = 'sk-proj-abc123DEF456ghi789JKL012mno345PQR678stu901VWX';

describe('keys wrapped over lines', () => {
  it.each([
    [`key ${PROJ.slice(0, 26)}\n${PROJ.slice(26)} ok`, `${PROJ.slice(0, 26)}\n${PROJ.slice(26)}`],
    [`${GHP.slice(0, 18)}\n${GHP.slice(18)}`, `${GHP.slice(0, 18)}\n${GHP.slice(18)}`],
    [`${GHP.slice(0, 20)}\r\n${GHP.slice(20)}\r\nthanks`, `${GHP.slice(0, 20)}\r\n${GHP.slice(20)}`],
    [`${PROJ.slice(0, 20)}\n${PROJ.slice(20, 40)}\n${PROJ.slice(40)}`, `${PROJ.slice(0, 20)}\n${PROJ.slice(20, 40)}\n${PROJ.slice(40)}`],
  ])('finds %j whole, normalized as the key', (text, value) => {
    expect(keys(text)).toEqual([value]);
    expect(normalizeValue('api_key', value)).toBe(normalizeValue('api_key', value.replace(/\r?\n/g, '')));
  });

  it('stops at a word, a short id after a whole key, and the next key', () => {
    expect(keys(`token ${GHP}\nThanks for the help`)).toEqual([GHP]);
    expect(keys(`${GHP}\r\nab12cd34ef56 is the next line`)).toEqual([GHP]);
    const other = 'sk-proj-zyx987WVU654tsr321QPO098nml765KJI432hgf109EDC';
    expect(keys(`${PROJ}\n${other}`)).toEqual([PROJ, other]);
    expect(keys(`${GHP.slice(0, 18)}\nabcdefghij`)).toEqual([]);
  });
});
