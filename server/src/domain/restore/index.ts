// Restore entry point: render a token's value under a restore mode, with localized labels, and
// tell where in rendered output (URL, link target, markup) a value would land.
export { restoreValue, abstractLabel, REDACTED } from './restore.js';
export type { RestoreTemplates, RestoreOptions } from './restore.js';
export { ABSTRACT_LANGUAGES, BUILTIN_ABSTRACT_LABELS } from './labels.js';
export { applyBidiRule } from './bidi.js';
export { FAMILY_FIRST_LANGUAGES } from './partial.js';
export { MarkupContext } from './markup-context.js';
export { gluedTail, MAX_GLUED_TAIL } from './right-context.js';
export type { TailVerdict } from './right-context.js';
