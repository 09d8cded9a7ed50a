// The built-in default policy, used when no policy directory is configured (decisions.md
// section 7): every detected value is tokenized and restores `full` (channel ceilings still
// apply: user_output restores full, log_safe restores nothing).
import type { Policy } from './types.js';

export const DEFAULT_POLICY: Policy = Object.freeze({
  name: 'default',
  version: 'builtin',
  description: 'Built-in default: tokenize everything detected, restore full.',
  rules: Object.freeze([
    Object.freeze({ name: 'tokenize-all', match: Object.freeze({}), action: 'tokenize', restore_mode: 'full' }),
  ]),
});
