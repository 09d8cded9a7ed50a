// Every YAML Veil hands to kubectl, Helm or a user reads the same under YAML 1.1 (go-yaml: kubectl,
// Helm, the API server) and YAML 1.2 (the `yaml` package: the server, the generator, the tests):
// the generator's output for any data, the committed CRDs, the chart's values and Chart.yaml, the
// policy files, and every ```yaml block of the docs and examples. Policy examples also validate
// when pasted into a TokenizationPolicy, and the Kubernetes objects the docs show validate against
// the CRDs. (The chart's rendered templates are checked in charts/test/chart.test.ts, with helm.)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CRD_FILES } from './crds.js';
import { parseYamlDocuments, stringifyPortableYaml, yamlVersionDifference } from './portable-yaml.js';
import { validateAgainstCrd } from './validate.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');

/** Words YAML 1.1 reads as booleans, nulls, numbers, times or merge keys. */
const YAML11_TRAPS = ['n', 'N', 'y', 'Y', 'yes', 'No', 'ON', 'off', 'Off', 'true', 'False', '~', 'null', 'Null', '0777', '0o17', '0x1F', '0b101', '1_000', '1:20', '190:20:30.15', '.inf', '-.Inf', '.NaN', '+12', '1e3', '<<', '2001-12-14', '2001-12-14t21:59:43.10-05:00', ''];

function files(dir: string, suffixes: readonly string[]): string[] {
  const absolute = join(repoRoot, dir);
  return readdirSync(absolute).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(absolute, name);
    if (statSync(path).isDirectory()) return files(relative(repoRoot, path), suffixes);
    return suffixes.some((suffix) => name.endsWith(suffix)) ? [relative(repoRoot, path)] : [];
  });
}

/** The ```yaml / ```yml fenced blocks of a Markdown file, with the line each starts on. */
function yamlBlocks(path: string): { line: number; text: string }[] {
  const blocks: { line: number; text: string }[] = [];
  const lines = read(path).split('\n');
  for (let index = 0; index < lines.length; index++) {
    if (!/^\s*```ya?ml\s*$/.test(lines[index]!)) continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    blocks.push({ line: start + 1, text: lines.slice(start, end).join('\n') });
    index = end;
  }
  return blocks;
}

const MARKDOWN = ['README.md', 'ARCHITECTURE.md', ...files('docs', ['.md']), ...files('examples', ['.md']), ...files('charts', ['.md'])];
const YAML_FILES = [...files('policies', ['.yaml', '.yml']), ...files('examples', ['.yaml', '.yml']), 'charts/veil/values.yaml', 'charts/veil/Chart.yaml', ...CRD_FILES.TokenizationPolicy, ...CRD_FILES.Tenant];
const DOC_BLOCKS = MARKDOWN.flatMap((path) => yamlBlocks(path).map((block) => ({ where: `${path}:${block.line}`, text: block.text })));

const CRD_TEXT = { TokenizationPolicy: read(CRD_FILES.TokenizationPolicy[0]!), Tenant: read(CRD_FILES.Tenant[0]!) };

type Data = Record<string, unknown>;
const isRecord = (value: unknown): value is Data => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPolicyFile = (value: unknown): value is Data => isRecord(value) && value['kind'] === undefined && 'rules' in value && 'name' in value;

/** A policy file pasted into a TokenizationPolicy, as docs/kubernetes.md shows. */
function asTokenizationPolicy(policy: Data): Data {
  return { apiVersion: 'veil.dev/v1alpha1', kind: 'TokenizationPolicy', metadata: { name: String(policy['name']).replace(/_/g, '-'), namespace: 'veil' }, spec: { policy: { ...policy, name: String(policy['name']).replace(/_/g, '-') } } };
}

describe('stringifyPortableYaml', () => {
  it('quotes every string YAML 1.1 or 1.2 would read as something else, as a key and as a value', () => {
    const data = { list: YAML11_TRAPS, map: Object.fromEntries(YAML11_TRAPS.map((word) => [word, word])) };
    const text = stringifyPortableYaml(data);
    expect(yamlVersionDifference(text, data)).toBeUndefined();
    expect(parseYamlDocuments(text, '1.1')).toEqual([data]);
    expect(text).toContain('"n": "n"');
  });

  it('round-trips arbitrary JSON data under both versions', () => {
    const word = fc.oneof(fc.constantFrom(...YAML11_TRAPS), fc.string({ maxLength: 12 }));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, word, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('list'), tie('map')),
      list: fc.array(tie('value'), { maxLength: 4 }),
      map: fc.dictionary(word, tie('value'), { maxKeys: 4 }),
    })).map;
    fc.assert(
      fc.property(json, (data) => {
        const expected: unknown = JSON.parse(JSON.stringify(data));
        expect(yamlVersionDifference(stringifyPortableYaml(expected), expected)).toBeUndefined();
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('names where a file reads differently under the two versions', () => {
    expect(yamlVersionDifference('strategy: {kind: reveal_last_n, n: 4}\n')).toMatch(/strategy/);
    expect(yamlVersionDifference('required: [kind, n]\n')).toMatch(/required\/1/);
    expect(yamlVersionDifference('enabled: on\n')).toMatch(/enabled/);
    expect(yamlVersionDifference('strategy: {kind: reveal_last_n, "n": 4}\n')).toBeUndefined();
  });
});

describe('committed YAML reads the same under YAML 1.1 and 1.2', () => {
  it('finds the files and documented examples it checks', () => {
    expect(YAML_FILES.length).toBeGreaterThanOrEqual(8);
    expect(DOC_BLOCKS.length).toBeGreaterThanOrEqual(5);
  });

  for (const path of YAML_FILES) {
    it(path, () => {
      expect(yamlVersionDifference(read(path))).toBeUndefined();
    });
  }

  for (const block of DOC_BLOCKS) {
    it(`yaml block at ${block.where}`, () => {
      expect(yamlVersionDifference(block.text)).toBeUndefined();
    });
  }
});

describe('documented policies and objects work when pasted into kubectl', () => {
  const policyExamples: { where: string; policy: Data }[] = [
    ...files('policies', ['.yaml']).map((path) => ({ where: path, policy: parseYamlDocuments(read(path), '1.1')[0] as Data })),
    ...DOC_BLOCKS.flatMap((block) => parseYamlDocuments(block.text, '1.1').filter(isPolicyFile).map((policy) => ({ where: block.where, policy }))),
  ];

  it('finds the policy examples', () => {
    expect(policyExamples.length).toBeGreaterThanOrEqual(4);
  });

  for (const { where, policy } of policyExamples) {
    it(`${where} (${String(policy['name'])}) as spec.policy of a TokenizationPolicy, read as kubectl reads it`, () => {
      expect(validateAgainstCrd(CRD_TEXT.TokenizationPolicy, asTokenizationPolicy(policy)).errors).toEqual([]);
    });
  }

  const objects = DOC_BLOCKS.flatMap((block) =>
    parseYamlDocuments(block.text, '1.1')
      .filter((data): data is Data => isRecord(data) && (data['kind'] === 'TokenizationPolicy' || data['kind'] === 'Tenant'))
      .map((object) => ({ where: block.where, object })),
  );

  it('finds the documented TokenizationPolicy and Tenant objects', () => {
    expect(objects.map(({ object }) => object['kind']).sort()).toEqual(expect.arrayContaining(['Tenant', 'TokenizationPolicy']));
  });

  for (const { where, object } of objects) {
    it(`${where}: ${String(object['kind'])} ${String((object['metadata'] as Data)['name'])} validates against its CRD`, () => {
      expect(validateAgainstCrd(CRD_TEXT[object['kind'] as 'Tenant' | 'TokenizationPolicy'], object).errors).toEqual([]);
    });
  }
});
