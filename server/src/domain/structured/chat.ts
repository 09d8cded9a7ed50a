// Chat mode (interface.md 2.11 and 4.1 chat rules): validate a chat message array, then tokenize
// every text-bearing field through one allocator, so the same value in two messages shares a
// token. What is tokenized, what passes, what is refused:
//
//   tokenized  `content` (a string), `text` of a `text` part, `refusal` of a `refusal` part,
//              `name` (a participant name can be a person's name), and the values and keys of
//              `tool_calls[i].function.arguments` (a JSON string: parsed, tokenized by the JSON
//              mode rules, re-serialized compactly; a string that is not JSON is refused)
//   passed     `role` (a non-empty string), `tool_call_id`, tool-call `id`, `type` and
//              `function.name`, `image_url.url` and `image_url.detail`, `input_audio.data` and
//              `input_audio.format`, content `null`, and any field that carries no text
//              (numbers, booleans, null, empty containers)
//   refused    any other field that carries text, anywhere in a message: a string, or an object
//              with keys. VEIL_VALIDATION_FAILED names the path, never a value; a field name is
//              quoted only when it is a plain identifier.
//
// Validation and the budget (the JSON-mode bounds, shared by the whole message array) run in
// full before any detection.
import { VeilError } from '@veil/common';
import { checkJsonDepth, nestedTooDeep } from '../json-depth.js';
import { setMember, tokenizeJsonDocument, type StructuredResult } from './json.js';
import { StructuredBudget, STRUCTURED_LIMITS, isPlainObject, type StructuredLimits } from './limits.js';
import { childPointer, nameForError } from './pointer.js';
import { slotEntities, type SlotScanner, type StructuredEntity } from './slots.js';
import type { Detection } from '../types.js';

const FIELD = 'input_messages';
/** Root of entity paths in chat mode: `/messages/2/content/0/text`. */
export const CHAT_PATH_ROOT = '/messages';

/** Deepest structure looked into when deciding whether an unknown field carries text. */
const MAX_PASSTHROUGH_DEPTH = 64;

/** A validated message array, with every tool-call arguments string already parsed. */
export interface PreparedChat {
  readonly messages: readonly Readonly<Record<string, unknown>>[];
  /** Parsed arguments keyed by `<message>/<tool call>`. */
  readonly arguments: ReadonlyMap<string, unknown>;
}

function invalid(path: string, message: string): VeilError {
  return new VeilError('VEIL_VALIDATION_FAILED', `${path}: ${message}`);
}

/**
 * Does `value` carry text: a string anywhere, or an object key anywhere? Too deep to vouch for
 * is refused as a depth bound (413), like every other nesting limit, naming `path`.
 */
export function carriesText(value: unknown, path: string): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current === 'string') return true;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_PASSTHROUGH_DEPTH) throw nestedTooDeep(path, MAX_PASSTHROUGH_DEPTH);
    if (Array.isArray(current)) {
      for (const item of current as unknown[]) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    if (Object.keys(current).length > 0) return true;
  }
  return false;
}

/** Every key of `object` outside `allowed` must carry no text. */
function checkOtherFields(object: Readonly<Record<string, unknown>>, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(object)) {
    if (allowed.includes(key)) continue;
    const where = `${path}/${nameForError(key)}`;
    if (carriesText(object[key], where)) throw invalid(where, 'field is not allowed here (it carries text that would not be tokenized)');
  }
}

function requireString(value: unknown, path: string, what = 'must be a string'): string {
  if (typeof value !== 'string') throw invalid(path, what);
  return value;
}

function optionalString(object: Readonly<Record<string, unknown>>, key: string, path: string): void {
  const value = object[key];
  if (value !== undefined && value !== null && typeof value !== 'string') throw invalid(`${path}/${key}`, 'must be a string');
}

function requireObject(value: unknown, path: string): Readonly<Record<string, unknown>> {
  if (!isPlainObject(value)) throw invalid(path, 'must be an object');
  return value;
}

function checkContentPart(part: unknown, path: string, budget: StructuredBudget): void {
  const object = requireObject(part, path);
  const type = object.type;
  if (typeof type !== 'string' || type.length === 0) throw invalid(`${path}/type`, 'must be a non-empty string');
  switch (type) {
    case 'text':
      budget.chargeSlot(requireString(object.text, `${path}/text`).length);
      checkOtherFields(object, ['type', 'text'], path);
      return;
    case 'refusal':
      budget.chargeSlot(requireString(object.refusal, `${path}/refusal`).length);
      checkOtherFields(object, ['type', 'refusal'], path);
      return;
    case 'image_url': {
      const image = requireObject(object.image_url, `${path}/image_url`);
      requireString(image.url, `${path}/image_url/url`);
      optionalString(image, 'detail', `${path}/image_url`);
      checkOtherFields(image, ['url', 'detail'], `${path}/image_url`);
      checkOtherFields(object, ['type', 'image_url'], path);
      return;
    }
    case 'input_audio': {
      const audio = requireObject(object.input_audio, `${path}/input_audio`);
      requireString(audio.data, `${path}/input_audio/data`);
      requireString(audio.format, `${path}/input_audio/format`);
      checkOtherFields(audio, ['data', 'format'], `${path}/input_audio`);
      checkOtherFields(object, ['type', 'input_audio'], path);
      return;
    }
    default:
      // An unknown part type passes through only when it carries no text besides its type.
      checkOtherFields(object, ['type'], path);
  }
}

function checkToolCall(call: unknown, path: string, budget: StructuredBudget, key: string, parsed: Map<string, unknown>): void {
  const object = requireObject(call, path);
  optionalString(object, 'id', path);
  optionalString(object, 'type', path);
  const fn = requireObject(object.function, `${path}/function`);
  requireString(fn.name, `${path}/function/name`);
  const raw = requireString(fn.arguments, `${path}/function/arguments`);
  // The arguments are a JSON text of their own: bounded before they are parsed, like a body.
  checkJsonDepth(raw, budget.limits.maxDepth, `${path}/function/arguments`);
  let document: unknown;
  try {
    document = JSON.parse(raw);
  } catch {
    throw invalid(`${path}/function/arguments`, 'is not valid JSON');
  }
  budget.chargeDocument(document, `${path}/function/arguments`);
  parsed.set(key, document);
  checkOtherFields(fn, ['name', 'arguments'], `${path}/function`);
  checkOtherFields(object, ['id', 'type', 'function'], path);
}

/**
 * Validate `input_messages` and charge the bounds, before any detection. Throws
 * VEIL_VALIDATION_FAILED (naming the path) or VEIL_PAYLOAD_TOO_LARGE (naming the bound).
 */
export function prepareChatMessages(messages: unknown, limits: StructuredLimits = STRUCTURED_LIMITS): PreparedChat {
  if (!Array.isArray(messages)) throw invalid(FIELD, 'must be an array of chat messages');
  const list = messages as unknown[];
  if (list.length === 0) throw invalid(FIELD, 'must hold at least one message');
  const budget = new StructuredBudget(FIELD, limits);
  const parsed = new Map<string, unknown>();
  const checked: Readonly<Record<string, unknown>>[] = [];
  for (const [index, item] of list.entries()) {
    const path = `${FIELD}/${index}`;
    const message = requireObject(item, path);
    const role = message.role;
    if (typeof role !== 'string' || role.length === 0) throw invalid(`${path}/role`, 'must be a non-empty string');
    const content = message.content;
    if (typeof content === 'string') budget.chargeSlot(content.length);
    else if (Array.isArray(content)) (content as unknown[]).forEach((part, partIndex) => checkContentPart(part, `${path}/content/${partIndex}`, budget));
    else if (content !== null && content !== undefined) throw invalid(`${path}/content`, 'must be a string, an array of content parts or null');
    optionalString(message, 'name', path);
    if (typeof message.name === 'string') budget.chargeSlot(message.name.length);
    optionalString(message, 'tool_call_id', path);
    const calls = message.tool_calls;
    if (Array.isArray(calls)) (calls as unknown[]).forEach((call, callIndex) => checkToolCall(call, `${path}/tool_calls/${callIndex}`, budget, `${index}/${callIndex}`, parsed));
    else if (calls !== null && calls !== undefined) throw invalid(`${path}/tool_calls`, 'must be an array');
    checkOtherFields(message, ['role', 'content', 'name', 'tool_calls', 'tool_call_id'], path);
    checked.push(message);
  }
  return { messages: checked, arguments: parsed };
}

/** The member of a content part that holds its text (`text` of a text part, `refusal` of a refusal part). */
function textField(part: Readonly<Record<string, unknown>>): 'text' | 'refusal' | undefined {
  return part.type === 'text' ? 'text' : part.type === 'refusal' ? 'refusal' : undefined;
}

class ChatWalker {
  readonly entities: StructuredEntity[] = [];
  readonly #scanner: SlotScanner;
  readonly #prepared: PreparedChat;

  constructor(scanner: SlotScanner, prepared: PreparedChat) {
    this.#scanner = scanner;
    this.#prepared = prepared;
  }

  #text(value: string, path: string, parts?: readonly Detection[]): string {
    const scan = this.#scanner.text(value, undefined, parts);
    for (const entity of slotEntities(scan, value, path, false)) this.entities.push(entity);
    return scan.safeText;
  }

  #part(part: Readonly<Record<string, unknown>>, path: string, parts: readonly Detection[] | undefined): Record<string, unknown> {
    const field = textField(part);
    if (field === undefined) return { ...part };
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(part)) setMember(out, key, key === field ? this.#text(part[key] as string, childPointer(path, field), parts) : part[key]);
    return out;
  }

  #toolCall(call: Readonly<Record<string, unknown>>, path: string, key: string): Record<string, unknown> {
    const fn = call.function as Readonly<Record<string, unknown>>;
    const argumentsPath = `${path}/function/arguments`;
    const result = tokenizeJsonDocument(this.#prepared.arguments.get(key), this.#scanner, {
      basePath: argumentsPath,
      errorPath: `${FIELD}${argumentsPath.slice(CHAT_PATH_ROOT.length)}`,
    });
    for (const entity of result.entities) this.entities.push(entity);
    const safeFunction: Record<string, unknown> = {};
    for (const name of Object.keys(fn)) setMember(safeFunction, name, name === 'arguments' ? JSON.stringify(result.value) : fn[name]);
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(call)) setMember(out, name, name === 'function' ? safeFunction : call[name]);
    return out;
  }

  #field(key: string, value: unknown, path: string, index: number, parts: readonly Detection[] | undefined): unknown {
    switch (key) {
      case 'content':
        if (typeof value === 'string') return this.#text(value, childPointer(path, 'content'), parts);
        if (Array.isArray(value)) {
          const contentPath = childPointer(path, 'content');
          const contentParts = value as Readonly<Record<string, unknown>>[];
          // The model reads the text parts as one text: a value split across adjacent parts is one value (joins.ts).
          const split = this.#scanner.splitParts(
            contentParts.map((part) => {
              const field = textField(part);
              return field === undefined ? undefined : (part[field] as string);
            }),
            [],
          );
          return contentParts.map((part, partIndex) => this.#part(part, childPointer(contentPath, partIndex), split.get(partIndex)));
        }
        return value;
      case 'name':
        return typeof value === 'string' ? this.#text(value, childPointer(path, 'name')) : value;
      case 'tool_calls': {
        if (!Array.isArray(value)) return value;
        const callsPath = childPointer(path, 'tool_calls');
        return (value as Readonly<Record<string, unknown>>[]).map((call, callIndex) => this.#toolCall(call, childPointer(callsPath, callIndex), `${index}/${callIndex}`));
      }
      default:
        return value;
    }
  }

  /** `parts`: of values split between this message's text content and its neighbours' (joins.ts). */
  message(message: Readonly<Record<string, unknown>>, index: number, parts?: readonly Detection[]): Record<string, unknown> {
    const path = childPointer(CHAT_PATH_ROOT, index);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(message)) setMember(out, key, this.#field(key, message[key], path, index, parts));
    return out;
  }
}

/** Tokenize a prepared message array; the scanner holds totals and new session entries. */
export function tokenizeChatMessages(prepared: PreparedChat, scanner: SlotScanner): StructuredResult<Record<string, unknown>[]> {
  const walker = new ChatWalker(scanner, prepared);
  // The model reads the conversation as one text: a value split between the text contents of
  // consecutive messages ("my card is 4111 1111", then "1111 1111") is one value (joins.ts).
  const across = scanner.splitParts(
    prepared.messages.map((message) => (typeof message.content === 'string' ? message.content : undefined)),
    [],
  );
  const value = prepared.messages.map((message, index) => walker.message(message, index, across.get(index)));
  return { value, entities: walker.entities };
}
