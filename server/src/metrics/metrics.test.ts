// Metrics over HTTP (inject): every counter of interface.md 6.4 with the veil_ prefix, fed from
// the requests' facts; the labelled counters' cardinality cap; the duration histograms; the
// merge of several workers' metrics; and no value anywhere in the exposition.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AggregatorRegistry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';
import { capTypeLabels, LabelCap, OTHER_TYPE, TYPE_LABEL_LIMIT, VeilMetrics } from './registry.js';

const CANARY = { email: 'metrics.canary.71@example.org', phone: '+1 415 555 0193', card: '4111 1111 1111 1111' };

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function scrape(app: TestApp['app']): Promise<string> {
  const response = await app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('exposes every counter of the catalog, zero before any request', async () => {
    t = await buildTestApp();
    const text = await scrape(t.app);
    for (const name of [
      'veil_transforms_total',
      'veil_rehydrates_total',
      'veil_detections_total',
      'veil_errors_total',
      'veil_prompt_security_triggers_total',
      'veil_output_guard_triggers_total',
      'veil_sessions_created_total',
      'veil_rate_limit_rejections_total',
      'veil_rag_operations_total',
      'veil_ner_degraded_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} counter`);
      expect(sample(text, name)).toBe(0);
    }
    expect(text).toContain('# TYPE veil_entities_detected_total counter');
    expect(text).toContain('# TYPE veil_entities_blocked_total counter');
    expect(text).toContain('# TYPE veil_transform_duration_seconds histogram');
    expect(text).toContain('# TYPE veil_rehydrate_duration_seconds histogram');
  });

  it('counts transforms, sessions, entities by type, rehydrates, detections and errors from the requests', async () => {
    t = await buildTestApp();
    const first = await post(t.app, '/v1/transform', { input: `Mail ${CANARY.email} or call ${CANARY.phone}.`, trace_id: 'metrics-trace' });
    expect(first.status).toBe(200);
    const continued = await post(t.app, '/v1/transform', { input: `Also ${CANARY.card}`, session_state: first.body.session_state });
    expect(continued.status).toBe(200);
    const token = first.body.entities[0].token as string;
    expect((await post(t.app, '/v1/rehydrate', { output: `Write to ${token}`, session_state: continued.body.session_state })).status).toBe(200);
    expect((await post(t.app, '/v1/detect', { input: `card ${CANARY.card}` })).status).toBe(200);
    expect((await post(t.app, '/v1/transform', { input: 'x', unknown_field: 1 })).status).toBe(400);
    expect((await post(t.app, '/v1/rehydrate', { output: 'x', session_state: 'v1.zz.not-a-blob' })).status).toBe(410);

    const text = await scrape(t.app);
    expect(sample(text, 'veil_transforms_total')).toBe(2);
    // The continuation reused the first session.
    expect(sample(text, 'veil_sessions_created_total')).toBe(1);
    expect(sample(text, 'veil_rehydrates_total')).toBe(1);
    expect(sample(text, 'veil_detections_total')).toBe(1);
    expect(sample(text, 'veil_errors_total')).toBe(2);
    expect(sample(text, 'veil_errors_by_code_total{code="VEIL_VALIDATION_FAILED"}')).toBe(1);
    expect(sample(text, 'veil_errors_by_code_total{code="VEIL_SESSION_EXPIRED"}')).toBe(1);
    expect(sample(text, 'veil_entities_detected_total{type="email"}')).toBe(1);
    expect(sample(text, 'veil_entities_detected_total{type="phone"}')).toBe(1);
    // The card once in the transform, once in detect.
    expect(sample(text, 'veil_entities_detected_total{type="credit_card"}')).toBe(2);
    // Histograms: the three transforms (the 400 included) and both rehydrates, 1 ms .. 10 s.
    expect(sample(text, 'veil_transform_duration_seconds_count')).toBe(3);
    expect(sample(text, 'veil_rehydrate_duration_seconds_count')).toBe(2);
    expect(text).toContain('veil_transform_duration_seconds_bucket{le="0.001"}');
    expect(text).toContain('veil_transform_duration_seconds_bucket{le="10"}');
    expect(sample(text, 'veil_transform_duration_seconds_bucket{le="+Inf"}')).toBe(3);
    // No value, no trace id, no session state in the exposition.
    for (const value of [...Object.values(CANARY), 'metrics-trace', first.body.session_state as string, token]) expect(text).not.toContain(value);
  });

  it('counts redactions by type as blocked entities', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-metrics-policy-'));
    writeFileSync(
      join(dir, 'default.yaml'),
      'name: default\nversion: "1"\nrules:\n  - {name: redact-email, match: {entity_type: email}, action: redact}\n  - {name: rest, match: {}, action: tokenize, restore_mode: full}\n',
    );
    try {
      t = await buildTestApp({ overrides: { policy: { directory: dir } } });
      const response = await post(t.app, '/v1/transform', { input: `mail ${CANARY.email} or ${CANARY.phone}` });
      expect(response.status).toBe(200);
      const text = await scrape(t.app);
      expect(sample(text, 'veil_entities_blocked_total{type="email"}')).toBe(1);
      expect(sample(text, 'veil_entities_blocked_total{type="phone"}')).toBeUndefined();
      expect(sample(text, 'veil_entities_detected_total{type="email"}')).toBe(1);
      expect(sample(text, 'veil_entities_detected_total{type="phone"}')).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('caps the type label at 64 distinct values, counting the rest as type="other"', async () => {
    t = await buildTestApp();
    // 80 distinct custom types, in three requests (at most 32 patterns per request).
    const names = Array.from({ length: 80 }, (_, index) => `kind${String(index).padStart(2, '0')}`);
    for (let start = 0; start < names.length; start += 32) {
      const chunk = names.slice(start, start + 32);
      const response = await post(t.app, '/v1/transform', {
        input: chunk.map((name) => `${name.toUpperCase()}-${name.slice(4)}42`).join(' '),
        custom_patterns: chunk.map((name) => ({ entity_type: name, pattern: `${name.toUpperCase()}-${name.slice(4)}42`, confidence: 0.9 })),
      });
      expect(response.status).toBe(200);
      expect(response.body.entities).toHaveLength(chunk.length);
    }
    const text = await scrape(t.app);
    const series = text.split('\n').filter((line) => line.startsWith('veil_entities_detected_total{'));
    expect(series).toHaveLength(TYPE_LABEL_LIMIT);
    const total = series.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    expect(total).toBe(80);
    expect(sample(text, `veil_entities_detected_total{type="${OTHER_TYPE}"}`)).toBe(80 - (TYPE_LABEL_LIMIT - 1));
  });

  it('counts the NER degraded hook', async () => {
    t = await buildTestApp();
    t.deps.countNerDegraded();
    t.deps.countNerDegraded();
    expect(sample(await scrape(t.app), 'veil_ner_degraded_total')).toBe(2);
  });
});

describe('label cap and worker merge', () => {
  it('admits the first values and maps later ones to other, stably', () => {
    const cap = new LabelCap(4);
    expect(['a', 'b', 'c', 'd', 'a', 'e'].map((value) => cap.label(value))).toEqual(['a', 'b', 'c', OTHER_TYPE, 'a', OTHER_TYPE]);
  });

  it('merges workers by summing, with one cap across all of them', async () => {
    const workerA = new VeilMetrics();
    const workerB = new VeilMetrics();
    workerA.transforms.inc(3);
    workerB.transforms.inc(4);
    workerA.transformDuration.observe(0.002);
    workerB.transformDuration.observe(0.2);
    for (let index = 0; index < 40; index += 1) workerA.countType(workerA.entitiesDetected, `a${index}`, 1);
    for (let index = 0; index < 40; index += 1) workerB.countType(workerB.entitiesDetected, `b${index}`, 2);
    const arrays = [await workerA.registry.getMetricsAsJSON(), await workerB.registry.getMetricsAsJSON()];
    const caps = new Map([['veil_entities_detected_total', new LabelCap()]]);
    for (const array of arrays) capTypeLabels(array, caps);
    const text = await AggregatorRegistry.aggregate(arrays).metrics();
    expect(sample(text, 'veil_transforms_total')).toBe(7);
    expect(sample(text, 'veil_transform_duration_seconds_count')).toBe(2);
    const series = text.split('\n').filter((line) => line.startsWith('veil_entities_detected_total{'));
    expect(series).toHaveLength(TYPE_LABEL_LIMIT);
    // 40 of A, 23 of B admitted; B's remaining 17 types (2 each) are `other`.
    expect(sample(text, 'veil_entities_detected_total{type="other"}')).toBe(34);
    expect(series.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)).toBe(40 + 80);
  });

  it('adds per-type counts to the counter when it is read, not on every request', async () => {
    const metrics = new VeilMetrics();
    const inc = vi.spyOn(metrics.entitiesDetected, 'inc');
    metrics.countType(metrics.entitiesDetected, 'email', 2);
    metrics.countType(metrics.entitiesDetected, 'email', 1);
    metrics.countType(metrics.entitiesDetected, 'phone', 1);
    metrics.countType(metrics.entitiesDetected, 'iban', Number.POSITIVE_INFINITY);
    expect(inc).not.toHaveBeenCalled();
    const text = await metrics.text();
    expect(inc).toHaveBeenCalledTimes(2);
    expect(sample(text, 'veil_entities_detected_total{type="email"}')).toBe(3);
    expect(sample(text, 'veil_entities_detected_total{type="phone"}')).toBe(1);
    expect(text).not.toContain('type="iban"');
    // Read again: nothing added twice.
    expect(sample(await metrics.text(), 'veil_entities_detected_total{type="email"}')).toBe(3);
    expect((await metrics.entitiesDetected.get()).values.find((value) => value.labels.type === 'phone')?.value).toBe(1);
  });
});
