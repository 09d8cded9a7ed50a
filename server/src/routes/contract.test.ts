// Regressions found by contract fuzzing (make schemathesis against docs/openapi.json): each case
// is a request schemathesis generated that once got a 5xx or a response outside the document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/support/harness.js';

describe('requests found by schemathesis', () => {
  let harness: TestApp;
  beforeAll(async () => {
    harness = await buildTestApp();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('POST /v1/rehydrate/stream without a body or Content-Type is a 400 envelope, not a 500', async () => {
    const response = await harness.app.inject({ method: 'POST', url: '/v1/rehydrate/stream' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VEIL_VALIDATION_FAILED', error: 'body: is required' });
  });
});
