// Which request fields reach the upstream: messages and input go to the transform, developer
// settings pass, any other text-bearing field is refused by name and never quoted.
import { isVeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { prepareChatRequest, prepareEmbeddingRequest } from './request.js';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isVeilError(error) && error.code === 'VEIL_VALIDATION_FAILED') return error.message;
  }
  throw new Error('expected VEIL_VALIDATION_FAILED');
}

describe('prepareChatRequest', () => {
  const messages = [{ role: 'user', content: 'hi' }];

  it('passes developer settings and text-free fields, and reads stream', () => {
    const prepared = prepareChatRequest({ model: 'm', messages, stream: true, stop: ['END'], tools: [{ type: 'function', function: { name: 'f', description: 'Find' } }], new_knob: 3, flag: false });
    expect(prepared.stream).toBe(true);
    expect(prepared.messages).toBe(messages);
    expect(prepared.passthrough).toEqual({ model: 'm', stream: true, stop: ['END'], tools: [{ type: 'function', function: { name: 'f', description: 'Find' } }], new_knob: 3, flag: false });
  });

  it('refuses text-bearing fields off the list, naming them without their value', () => {
    for (const field of ['user', 'metadata', 'prediction', 'safety_identifier', 'web_search_options', 'future_text']) {
      const message = refusal(() => prepareChatRequest({ model: 'm', messages, [field]: field === 'metadata' ? { who: 'jane@example.com' } : 'jane@example.com' }));
      expect(message).toMatch(new RegExp(`^${field}: `));
      expect(message).not.toContain('jane');
    }
    expect(refusal(() => prepareChatRequest({ model: 'm', messages, ['jane@example.com']: 'x' }))).toMatch(/^<field>: /);
  });

  it('refuses media parts (they cannot be inspected) unless allowed', () => {
    const image = [{ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }];
    expect(refusal(() => prepareChatRequest({ model: 'm', messages: image }))).toMatch(/^messages\/0\/content\/1: media parts/);
    expect(prepareChatRequest({ model: 'm', messages: image }, true).messages).toBe(image);
    const audio = [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }];
    expect(refusal(() => prepareChatRequest({ model: 'm', messages: audio }))).toMatch(/^messages\/0\/content\/0: /);
  });

  it('refuses a body without messages, a non-string model and a non-boolean stream', () => {
    expect(refusal(() => prepareChatRequest([]))).toMatch(/^body: /);
    expect(refusal(() => prepareChatRequest({ model: 'm' }))).toMatch(/^messages: /);
    expect(refusal(() => prepareChatRequest({ model: 1, messages }))).toMatch(/^model: /);
    expect(refusal(() => prepareChatRequest({ model: 'm', messages, stream: 'yes' }))).toMatch(/^stream: /);
  });
});

describe('prepareEmbeddingRequest', () => {
  it('takes a string or strings, refuses token arrays and other text fields', () => {
    expect(prepareEmbeddingRequest({ model: 'e', input: 'a', dimensions: 8 })).toEqual({ input: 'a', passthrough: { model: 'e', dimensions: 8 } });
    expect(prepareEmbeddingRequest({ model: 'e', input: ['a', 'b'] }).input).toEqual(['a', 'b']);
    expect(refusal(() => prepareEmbeddingRequest({ model: 'e', input: [1, 2] }))).toMatch(/^input: /);
    expect(refusal(() => prepareEmbeddingRequest({ model: 'e', input: [] }))).toMatch(/^input: /);
    expect(refusal(() => prepareEmbeddingRequest({ model: 'e', input: 'a', user: 'jane' }))).toMatch(/^user: /);
  });
});
