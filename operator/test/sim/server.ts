// A Kubernetes API simulator served over HTTP on loopback, for the tests a real API server cannot
// serve: fault injection (fail the next N requests, drop every open watch, compact history) and
// fast, deterministic operator scenarios. Everything else runs against a real kube-apiserver
// (scripts/k8s-testenv.sh); the KubeClient conformance suite runs against both and holds the
// simulator to the real server's behaviour on every point the operator relies on: discovery,
// JSON CRUD, list and watch with resourceVersion (watch events arrive a little after the write's
// response, as from a real server, so informer caches lag), one global resourceVersion counter,
// 409 on stale writes (custom resources need a resourceVersion to update; built-in kinds accept
// an unconditional update), metadata.generation bumped on spec changes only, status subresource,
// 410 Gone for compacted versions, namespaces that must exist, label validation, Lease MicroTime,
// CRD validation from the generated CRD YAML with unknown fields pruned, or refused under
// `fieldValidation=Strict`, finalizers and deletionTimestamp, ownerReferences with background
// garbage collection, field defaults for Deployments and Services, merge patches, JSON patches,
// server-side apply with field managers (leaf-level ownership; lists are atomic except owner
// references), set-based label selectors, `metadata.name` field selectors, bearer-token auth.
//
// Simplifications (docs/kubernetes.md): no pagination (`limit` is ignored), no managedFields in
// responses, no admission plugins, no RBAC, no controllers (Deployments never get a status, Pods
// appear only when a test seeds them).
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyMergePatch, deepEqual, isPlainObject } from '../../src/kube/json.js';
import { apiVersionOf, KINDS, type KindName, type KubeObject, type ObjectMeta, type ResourceKind } from '../../src/kube/types.js';

/**
 * Returns human-readable problems (field named, never a value); empty means valid. `prune`, when
 * given, drops the fields the kind's schema does not declare and names them (strict validation).
 */
export type ObjectValidator = ((object: KubeObject, old: KubeObject | undefined) => string[]) & {
  readonly prune?: (object: KubeObject) => { readonly object: unknown; readonly unknown: readonly string[] };
};

export interface SimulatorOptions {
  /** Per-kind validators, e.g. built from crds/*.yaml (sim/crd-validation.ts). */
  readonly validators?: Partial<Record<KindName, ObjectValidator>>;
  /** Watch events kept for resuming; older versions answer 410 Gone. */
  readonly historyLimit?: number;
  readonly now?: () => number;
  /** Namespaces that exist (default: `default`); creating in any other is a 404, as for real. */
  readonly namespaces?: readonly string[];
  /** Delay between a write's response and its watch event (default 20 ms): informers lag, as they do for real. */
  readonly watchDelayMs?: number;
}

export interface FaultRule {
  /** Respond with this status instead of serving the request. */
  readonly status: number;
  /** Restrict the fault; unset fields match everything. Watches only match when `watch` is true. */
  readonly methods?: readonly string[];
  readonly kinds?: readonly KindName[];
  readonly watch?: boolean;
}

interface PendingFault extends FaultRule {
  remaining: number;
}

interface Watcher {
  readonly kind: ResourceKind;
  readonly namespace: string | undefined;
  readonly selector: Selector;
  readonly response: ServerResponse;
  /** Events waiting for the delivery delay, in order. */
  readonly pending: { type: string; object: KubeObject }[];
  timer: NodeJS.Timeout | undefined;
}

interface HistoryEvent {
  readonly rv: number;
  readonly kind: ResourceKind;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
}

export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly watch: boolean;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

type Selector = (object: KubeObject) => boolean;

/** Split on commas outside parentheses: `a in (x,y),b` -> [`a in (x,y)`, `b`]. */
function splitRequirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim());
}

/** A label selector in the API's syntax: `=`, `==`, `!=`, `in (..)`, `notin (..)`, `key`, `!key`. */
function parseLabelSelector(text: string | null): (labels: Record<string, string>) => boolean {
  if (text === null || text.trim() === '') return () => true;
  const bad = (): never => {
    throw new HttpProblem(400, 'BadRequest', 'unable to parse requirement: found unexpected token in labelSelector');
  };
  const tests = splitRequirements(text).map((term): ((labels: Record<string, string>) => boolean) => {
    const set = /^([A-Za-z0-9./_-]+)\s+(in|notin)\s+\(([^()]*)\)$/.exec(term);
    if (set) {
      const values = new Set(set[3]!.split(',').map((value) => value.trim()));
      const key = set[1]!;
      return set[2] === 'in' ? (labels) => key in labels && values.has(labels[key]!) : (labels) => !(key in labels) || !values.has(labels[key]!);
    }
    const notEqual = /^([A-Za-z0-9./_-]+)\s*!=\s*([A-Za-z0-9._-]*)$/.exec(term);
    if (notEqual) return (labels) => labels[notEqual[1]!] !== notEqual[2]!;
    const equal = /^([A-Za-z0-9./_-]+)\s*==?\s*([A-Za-z0-9._-]*)$/.exec(term);
    if (equal) return (labels) => labels[equal[1]!] === equal[2]!;
    const absent = /^!\s*([A-Za-z0-9./_-]+)$/.exec(term);
    if (absent) return (labels) => !(absent[1]! in labels);
    if (/^[A-Za-z0-9./_-]+$/.test(term)) return (labels) => term in labels;
    return bad();
  });
  return (labels) => tests.every((test) => test(labels));
}

/** Field selectors on metadata.name and metadata.namespace (`=`, `==`, `!=`), as every kind supports. */
function parseFieldSelector(text: string | null): Selector {
  if (text === null || text.trim() === '') return () => true;
  const tests = text.split(',').map((term): Selector => {
    const match = /^\s*(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*([^,]*?)\s*$/.exec(term);
    if (!match) throw new HttpProblem(400, 'BadRequest', `"${term.trim().split(/[=!]/)[0] ?? ''}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    const read = (object: KubeObject): string | undefined => (match[1] === 'metadata.name' ? object.metadata.name : object.metadata.namespace);
    return match[2] === '!=' ? (object) => read(object) !== match[3] : (object) => read(object) === match[3];
  });
  return (object) => tests.every((test) => test(object));
}

function parseSelectors(query: URLSearchParams): Selector {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'));
  return (object) => labels(object.metadata.labels ?? {}) && fields(object);
}

const GENERATION_KINDS = new Set<string>(['Deployment', 'TokenizationPolicy', 'Tenant']);
const ALL_KINDS: readonly ResourceKind[] = Object.values(KINDS);

function storeKey(kind: ResourceKind, namespace: string, name: string): string {
  return `${kind.plural}.${kind.group}|${namespace}|${name}`;
}

function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

function isValidBase64(value: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value);
}

/** Everything that is neither metadata nor status: what a generation bump tracks. */
function specPart(object: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, status: _status, apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest;
}

export class ApiSimulator {
  readonly token = randomBytes(16).toString('hex');
  readonly requests: RequestRecord[] = [];
  #server: Server;
  #objects = new Map<string, KubeObject>();
  #history: HistoryEvent[] = [];
  #rv = 1;
  /** Watches may resume from any version >= this one. */
  #oldestResumable = 1;
  #watchers = new Set<Watcher>();
  #faults: PendingFault[] = [];
  #validators: Partial<Record<KindName, ObjectValidator>>;
  #historyLimit: number;
  #now: () => number;
  #ipCounter = 10;
  #namespaces: Set<string>;
  #watchDelayMs: number;
  /** Server-side apply ownership: store key -> manager -> leaf paths (see leaves()). */
  #owners = new Map<string, Map<string, Set<string>>>();

  private constructor(options: SimulatorOptions) {
    this.#validators = options.validators ?? {};
    this.#historyLimit = options.historyLimit ?? 10_000;
    this.#now = options.now ?? Date.now;
    this.#namespaces = new Set(options.namespaces ?? ['default']);
    this.#watchDelayMs = options.watchDelayMs ?? 20;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) this.#send(response, 500, status(500, 'InternalError', String(error)));
      });
    });
  }

  static async start(options: SimulatorOptions = {}): Promise<ApiSimulator> {
    const simulator = new ApiSimulator(options);
    await new Promise<void>((resolve) => simulator.#server.listen(0, '127.0.0.1', resolve));
    return simulator;
  }

  get url(): string {
    const address = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  /** A kubeconfig (YAML) for this simulator; the default namespace is `namespace`. */
  kubeconfig(namespace = 'default'): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      // client-node refuses plain HTTP unless TLS verification is switched off; the simulator
      // listens on loopback only, where there is nothing to verify.
      `- name: veil-sim\n  cluster:\n    server: ${this.url}\n    insecure-skip-tls-verify: true`,
      'users:',
      `- name: veil-sim\n  user:\n    token: ${this.token}`,
      'contexts:',
      `- name: veil-sim\n  context:\n    cluster: veil-sim\n    user: veil-sim\n    namespace: ${namespace}`,
      'current-context: veil-sim',
      '',
    ].join('\n');
  }

  async stop(): Promise<void> {
    for (const watcher of this.#watchers) watcher.response.destroy();
    this.#watchers.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // -------------------------------------------------------------------------------------------
  // Knobs for tests

  /** Fail the next `count` matching requests with `rule.status` (429 carries Retry-After: 1). */
  failNext(count: number, rule: FaultRule): void {
    this.#faults.push({ ...rule, remaining: count });
  }

  /** Create a namespace (the simulator has no Namespace objects, only their existence). */
  addNamespace(name: string): void {
    this.#namespaces.add(name);
  }

  /** Cut every open watch connection, as a network drop or an API server restart would. */
  dropWatches(): number {
    const count = this.#watchers.size;
    for (const watcher of this.#watchers) watcher.response.destroy();
    this.#watchers.clear();
    return count;
  }

  /** Forget all watch history: any watch resuming from an older version now gets 410 Gone. */
  compact(): void {
    this.#history = [];
    this.#oldestResumable = this.#rv;
  }

  get openWatches(): number {
    return this.#watchers.size;
  }

  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** Direct read of the stored object (a copy), bypassing HTTP. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  peek<T extends KubeObject = KubeObject>(kind: KindName, namespace: string, name: string): T | undefined {
    const object = this.#objects.get(storeKey(KINDS[kind], namespace, name));
    return object === undefined ? undefined : (structuredClone(object) as T);
  }

  peekAll<T extends KubeObject = KubeObject>(kind: KindName, namespace?: string): T[] {
    return this.#list(KINDS[kind], namespace, () => true) as T[];
  }

  /**
   * Create or overwrite an object as the cluster itself would (status kept, no validation):
   * for the world the operator observes but does not own, such as server Pods.
   */
  seed(kind: KindName, object: KubeObject): KubeObject {
    const descriptor = KINDS[kind];
    const namespace = object.metadata.namespace ?? 'default';
    const key = storeKey(descriptor, namespace, object.metadata.name);
    const old = this.#objects.get(key);
    const stored = structuredClone(object);
    stored.apiVersion = apiVersionOf(descriptor);
    stored.kind = descriptor.kind;
    stored.metadata = {
      ...stored.metadata,
      namespace,
      uid: old?.metadata.uid ?? randomUUID(),
      creationTimestamp: old?.metadata.creationTimestamp ?? this.#timestamp(),
      resourceVersion: String(++this.#rv),
    };
    this.#objects.set(key, stored);
    this.#record(descriptor, old === undefined ? 'ADDED' : 'MODIFIED', stored);
    return structuredClone(stored);
  }

  /** Remove an object as the cluster would (finalizers and garbage collection apply). */
  remove(kind: KindName, namespace: string, name: string): void {
    const object = this.#objects.get(storeKey(KINDS[kind], namespace, name));
    if (object !== undefined) this.#delete(KINDS[kind], object, {});
  }

  // -------------------------------------------------------------------------------------------
  // HTTP

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://sim');
    const method = request.method ?? 'GET';
    const isWatch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
    const record = (code: number): void => {
      this.requests.push({ method, path: url.pathname, status: code, watch: isWatch });
    };
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      record(401);
      this.#send(response, 401, status(401, 'Unauthorized', 'Unauthorized'));
      return;
    }
    const body = await readBody(request);
    try {
      const route = this.#route(url.pathname);
      const fault = this.#takeFault(method, route?.kind, isWatch);
      if (fault !== undefined) {
        const reason = fault === 429 ? 'TooManyRequests' : fault === 409 ? 'Conflict' : fault === 500 ? 'InternalError' : 'ServiceUnavailable';
        record(fault);
        this.#send(response, fault, status(fault, reason, `injected fault ${fault}`), fault === 429 ? { 'retry-after': '1' } : {});
        return;
      }
      if (route === undefined) {
        const discovery = this.#discovery(url.pathname);
        if (discovery === undefined || method !== 'GET') throw new HttpProblem(404, 'NotFound', 'the server could not find the requested resource');
        record(200);
        this.#send(response, 200, discovery);
        return;
      }
      if (isWatch && method === 'GET' && route.name === undefined) {
        record(200);
        this.#watch(route.kind, route.namespace, url.searchParams, response);
        return;
      }
      const result = this.#dispatch(method, route, url.searchParams, request.headers['content-type'] ?? '', body);
      record(result.code);
      this.#send(response, result.code, result.body);
    } catch (error) {
      const problem = error instanceof HttpProblem ? error : new HttpProblem(500, 'InternalError', 'internal error');
      record(problem.status);
      this.#send(response, problem.status, status(problem.status, problem.reason, problem.message));
    }
  }

  #takeFault(method: string, kind: ResourceKind | undefined, isWatch: boolean): number | undefined {
    const index = this.#faults.findIndex(
      (fault) =>
        fault.remaining > 0 &&
        (fault.methods === undefined || fault.methods.includes(method)) &&
        (fault.kinds === undefined || (kind !== undefined && fault.kinds.some((name) => KINDS[name] === kind))) &&
        (isWatch ? fault.watch === true : fault.watch !== true),
    );
    if (index < 0) return undefined;
    const fault = this.#faults[index]!;
    fault.remaining -= 1;
    if (fault.remaining === 0) this.#faults.splice(index, 1);
    return fault.status;
  }

  #send(response: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
    response.writeHead(code, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  }

  #discovery(path: string): unknown {
    if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
    if (path === '/apis') {
      const groups = [...new Set(ALL_KINDS.filter((kind) => kind.group !== '').map((kind) => `${kind.group}/${kind.version}`))];
      return {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: groups.map((groupVersion) => {
          const [name, version] = groupVersion.split('/') as [string, string];
          return { name, versions: [{ groupVersion, version }], preferredVersion: { groupVersion, version } };
        }),
      };
    }
    const match = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (!match) return undefined;
    const group = match[2] ?? '';
    const version = match[1] ?? match[3]!;
    const kinds = ALL_KINDS.filter((kind) => kind.group === group && kind.version === version);
    if (kinds.length === 0) return undefined;
    const resources = kinds.flatMap((kind) => {
      const main = { name: kind.plural, singularName: kind.kind.toLowerCase(), namespaced: kind.namespaced, kind: kind.kind, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] };
      return kind.statusSubresource ? [main, { name: `${kind.plural}/status`, singularName: '', namespaced: kind.namespaced, kind: kind.kind, verbs: ['get', 'patch', 'update'] }] : [main];
    });
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
  }

  #route(path: string): { kind: ResourceKind; namespace: string | undefined; name: string | undefined; subresource: string | undefined } | undefined {
    const match = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(path);
    if (!match) return undefined;
    const group = match[2] ?? '';
    const version = match[1] ?? match[3]!;
    const kind = ALL_KINDS.find((candidate) => candidate.group === group && candidate.version === version && candidate.plural === match[5]);
    if (kind === undefined) return undefined;
    const namespace = match[4] === undefined ? undefined : decodeURIComponent(match[4]);
    const name = match[6] === undefined ? undefined : decodeURIComponent(match[6]);
    if (name !== undefined && namespace === undefined) return undefined;
    return { kind, namespace, name, subresource: match[7] };
  }

  #dispatch(
    method: string,
    route: { kind: ResourceKind; namespace: string | undefined; name: string | undefined; subresource: string | undefined },
    query: URLSearchParams,
    contentType: string,
    body: string,
  ): { code: number; body: unknown } {
    const { kind, namespace, name, subresource } = route;
    if (subresource !== undefined && (subresource !== 'status' || !kind.statusSubresource)) {
      throw new HttpProblem(404, 'NotFound', 'the server could not find the requested resource');
    }
    if (name === undefined) {
      if (method === 'GET') {
        const items = this.#list(kind, namespace, parseSelectors(query));
        return { code: 200, body: { kind: `${kind.kind}List`, apiVersion: apiVersionOf(kind), metadata: { resourceVersion: String(this.#rv) }, items } };
      }
      if (method === 'POST' && namespace !== undefined) return { code: 201, body: this.#create(kind, namespace, this.#decode(kind, parseJson(body), query), writerOf(query)) };
      throw new HttpProblem(405, 'MethodNotAllowed', `method ${method} not allowed on a collection`);
    }
    const ns = namespace!;
    switch (method) {
      case 'GET':
        return { code: 200, body: structuredClone(this.#require(kind, ns, name)) };
      case 'PUT':
        // Custom resources refuse an update without resourceVersion; built-in kinds take it as unconditional.
        return { code: 200, body: this.#update(kind, ns, name, this.#decode(kind, parseJson(body), query), subresource === 'status', kind.group === 'veil.dev', writerOf(query)) };
      case 'PATCH': {
        const type = contentType.split(';')[0]!.trim();
        if (type === 'application/apply-patch+yaml') {
          if (subresource !== undefined) throw new HttpProblem(415, 'UnsupportedMediaType', 'the simulator applies to the main resource only');
          const manager = query.get('fieldManager');
          if (manager === null || manager === '') throw new HttpProblem(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
          // Apply refuses undeclared fields whatever fieldValidation says (the real server's 500).
          return this.#apply(kind, ns, name, this.#decode(kind, parseJson(body), query, 'apply'), manager, query.get('force') === 'true');
        }
        const current = this.#require(kind, ns, name);
        let patched: KubeObject;
        if (type === 'application/json-patch+json') {
          patched = applyJsonPatch(current, parseJsonArray(body)) as KubeObject;
        } else if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json') {
          patched = applyMergePatch(current, parseJson(body)) as KubeObject;
        } else {
          throw new HttpProblem(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
        }
        // A patch is conditional only when it sets a resourceVersion (then it must be current).
        return { code: 200, body: this.#update(kind, ns, name, this.#decode(kind, patched, query, subresource === 'status' ? 'status' : 'write'), subresource === 'status', false, writerOf(query)) };
      }
      case 'DELETE': {
        const current = this.#require(kind, ns, name);
        const options = body.trim() === '' ? {} : parseJson(body);
        const preconditions = isPlainObject(options.preconditions) ? options.preconditions : {};
        if (typeof preconditions.uid === 'string' && preconditions.uid !== current.metadata.uid) {
          throw new HttpProblem(409, 'Conflict', 'Precondition failed: UID in precondition does not match the object');
        }
        if (typeof preconditions.resourceVersion === 'string' && preconditions.resourceVersion !== current.metadata.resourceVersion) {
          throw new HttpProblem(409, 'Conflict', 'Precondition failed: resourceVersion in precondition does not match the object');
        }
        const policy = typeof options.propagationPolicy === 'string' ? options.propagationPolicy : (query.get('propagationPolicy') ?? 'Background');
        const remaining = this.#delete(kind, current, { orphan: policy === 'Orphan' });
        if (remaining === undefined) this.#owners.delete(storeKey(kind, ns, name));
        return { code: 200, body: remaining ?? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: kind.plural } } };
      }
      default:
        throw new HttpProblem(405, 'MethodNotAllowed', `method ${method} not allowed`);
    }
  }

  #require(kind: ResourceKind, namespace: string, name: string): KubeObject {
    const object = this.#objects.get(storeKey(kind, namespace, name));
    if (object === undefined) throw new HttpProblem(404, 'NotFound', `${kind.plural}.${kind.group || 'core'} "${name}" not found`);
    return object;
  }

  #list(kind: ResourceKind, namespace: string | undefined, selector: Selector): KubeObject[] {
    return [...this.#objects.values()]
      .filter((object) => object.kind === kind.kind && object.apiVersion === apiVersionOf(kind))
      .filter((object) => namespace === undefined || object.metadata.namespace === namespace)
      .filter((object) => selector(object))
      .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`))
      .map((object) => structuredClone(object));
  }

  #timestamp(): string {
    return new Date(this.#now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  #checkShape(kind: ResourceKind, namespace: string, object: Record<string, unknown>): KubeObject {
    if (!isPlainObject(object.metadata)) throw new HttpProblem(400, 'BadRequest', 'metadata: required');
    if (object.kind !== undefined && object.kind !== kind.kind) throw new HttpProblem(400, 'BadRequest', `kind: must be ${kind.kind}`);
    if (object.apiVersion !== undefined && object.apiVersion !== apiVersionOf(kind)) throw new HttpProblem(400, 'BadRequest', `apiVersion: must be ${apiVersionOf(kind)}`);
    const metadata = object.metadata as Partial<ObjectMeta>;
    if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
      throw new HttpProblem(400, 'BadRequest', 'metadata.namespace: does not match the namespace of the request');
    }
    return { ...object, apiVersion: apiVersionOf(kind), kind: kind.kind, metadata: { ...metadata, namespace } as ObjectMeta };
  }

  #validate(kind: ResourceKind, object: KubeObject, old: KubeObject | undefined): void {
    const name = object.metadata.name;
    if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name)) {
      throw new HttpProblem(422, 'Invalid', `${kind.kind} "${name}" is invalid: metadata.name: Invalid value: must be a lowercase RFC 1123 subdomain`);
    }
    const labelProblems = labelProblemsOf(object.metadata.labels);
    if (labelProblems.length > 0) throw new HttpProblem(422, 'Invalid', `${kind.kind} "${name}" is invalid: ${labelProblems.join(', ')}`);
    if (kind.kind === 'Secret' || kind.kind === 'ConfigMap') {
      for (const key of Object.keys((object.data as Record<string, unknown> | undefined) ?? {})) {
        if (!/^[-._a-zA-Z0-9]+$/.test(key) || key.length > 253) {
          throw new HttpProblem(422, 'Invalid', `${kind.kind} "${name}" is invalid: data[${key}]: Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`);
        }
      }
    }
    if (kind.kind === 'Secret') {
      for (const [key, value] of Object.entries((object.data as Record<string, unknown> | undefined) ?? {})) {
        if (typeof value !== 'string' || !isValidBase64(value)) throw new HttpProblem(400, 'BadRequest', `data[${key}]: illegal base64 data`);
      }
    }
    if (kind.kind === 'ConfigMap') {
      const total = Object.values((object.data as Record<string, string> | undefined) ?? {}).reduce((sum, value) => sum + Buffer.byteLength(value), 0);
      if (total > 1024 * 1024) throw new HttpProblem(422, 'Invalid', 'ConfigMap is invalid: []: Too long: must have at most 1048576 bytes');
    }
    const validator = this.#validators[kind.kind as KindName];
    const problems = validator === undefined ? [] : validator(object, old);
    if (problems.length > 0) {
      throw new HttpProblem(422, 'Invalid', `${kind.kind}.${kind.group} "${name}" is invalid: ${problems.join(', ')}`);
    }
  }

  #create(kind: ResourceKind, namespace: string, body: Record<string, unknown>, manager?: string): KubeObject {
    if (!this.#namespaces.has(namespace)) throw new HttpProblem(404, 'NotFound', `namespaces "${namespace}" not found`);
    const object = this.#checkShape(kind, namespace, body);
    const metadata = object.metadata;
    if ((metadata.name as string | undefined) === undefined || metadata.name === '') {
      if (typeof metadata.generateName !== 'string') throw new HttpProblem(422, 'Invalid', 'metadata.name: Required value: name or generateName is required');
      metadata.name = `${metadata.generateName}${randomBytes(3).toString('hex').slice(0, 5)}`;
    }
    const key = storeKey(kind, namespace, metadata.name);
    if (this.#objects.has(key)) throw new HttpProblem(409, 'AlreadyExists', `${kind.plural} "${metadata.name}" already exists`);
    if (kind.statusSubresource) delete object.status;
    applyDefaults(kind, object, undefined, () => this.#allocateIp());
    foldStringData(kind, object);
    this.#validate(kind, object, undefined);
    delete metadata.deletionTimestamp;
    delete metadata.resourceVersion;
    object.metadata = {
      ...metadata,
      uid: randomUUID(),
      creationTimestamp: this.#timestamp(),
      resourceVersion: String(++this.#rv),
      ...(GENERATION_KINDS.has(kind.kind) ? { generation: 1 } : {}),
    };
    this.#objects.set(key, object);
    if (manager !== undefined) this.#own(key, undefined, object, manager);
    this.#record(kind, 'ADDED', object);
    return structuredClone(object);
  }

  #update(kind: ResourceKind, namespace: string, name: string, body: Record<string, unknown>, statusOnly: boolean, requireVersion: boolean, manager?: string): KubeObject {
    const current = this.#require(kind, namespace, name);
    const incoming = this.#checkShape(kind, namespace, body);
    if (incoming.metadata.name !== name) throw new HttpProblem(400, 'BadRequest', 'metadata.name: does not match the name in the URL');
    const version = incoming.metadata.resourceVersion;
    if (requireVersion && (version === undefined || version === '')) {
      throw new HttpProblem(422, 'Invalid', `${kind.kind} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`);
    }
    if (version !== undefined && version !== current.metadata.resourceVersion) {
      throw new HttpProblem(409, 'Conflict', `Operation cannot be fulfilled on ${kind.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    if (incoming.metadata.uid !== undefined && incoming.metadata.uid !== current.metadata.uid) {
      throw new HttpProblem(409, 'Conflict', `Precondition failed: UID in precondition does not match the object`);
    }
    let next: KubeObject;
    if (statusOnly) {
      next = structuredClone(current);
      if (incoming.status === undefined) delete next.status;
      else next.status = structuredClone(incoming.status);
    } else {
      next = structuredClone(incoming);
      // Server-owned metadata survives any update.
      next.metadata = {
        ...incoming.metadata,
        uid: current.metadata.uid!,
        creationTimestamp: current.metadata.creationTimestamp!,
        ...(current.metadata.deletionTimestamp === undefined ? {} : { deletionTimestamp: current.metadata.deletionTimestamp }),
        ...(current.metadata.generation === undefined ? {} : { generation: current.metadata.generation }),
      };
      if (current.metadata.deletionTimestamp === undefined) delete next.metadata.deletionTimestamp;
      if (kind.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = structuredClone(current.status);
      }
      if (current.metadata.deletionTimestamp !== undefined) {
        const before = new Set(current.metadata.finalizers ?? []);
        if ((next.metadata.finalizers ?? []).some((finalizer) => !before.has(finalizer))) {
          throw new HttpProblem(422, 'Forbidden', 'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted');
        }
      }
      applyDefaults(kind, next, current, () => this.#allocateIp());
      foldStringData(kind, next);
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion!;
    this.#validate(kind, next, current);
    // A write that changes nothing keeps the version and sends no event, as the API server does.
    if (deepEqual(next, current)) return structuredClone(current);
    if (!statusOnly && GENERATION_KINDS.has(kind.kind) && !deepEqual(specPart(next), specPart(current))) {
      next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    next.metadata.resourceVersion = String(++this.#rv);
    this.#objects.set(storeKey(kind, namespace, name), next);
    if (manager !== undefined && !statusOnly) this.#own(storeKey(kind, namespace, name), current, next, manager);
    if (next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0) {
      this.#remove(kind, next, false);
      return structuredClone(next);
    }
    this.#record(kind, 'MODIFIED', next);
    return structuredClone(next);
  }

  /** Returns the object when it lingers (finalizers), undefined when removed. */
  #delete(kind: ResourceKind, object: KubeObject, options: { orphan?: boolean }): KubeObject | undefined {
    if ((object.metadata.finalizers ?? []).length > 0) {
      if (object.metadata.deletionTimestamp !== undefined) return structuredClone(object);
      const next = structuredClone(object);
      next.metadata.deletionTimestamp = this.#timestamp();
      next.metadata.resourceVersion = String(++this.#rv);
      this.#objects.set(storeKey(kind, object.metadata.namespace!, object.metadata.name), next);
      this.#record(kind, 'MODIFIED', next);
      return structuredClone(next);
    }
    this.#remove(kind, object, options.orphan === true);
    return undefined;
  }

  #remove(kind: ResourceKind, object: KubeObject, orphan: boolean): void {
    this.#objects.delete(storeKey(kind, object.metadata.namespace!, object.metadata.name));
    this.#owners.delete(storeKey(kind, object.metadata.namespace!, object.metadata.name));
    const gone = structuredClone(object);
    gone.metadata.resourceVersion = String(++this.#rv);
    this.#record(kind, 'DELETED', gone);
    // Garbage collection (background): dependents lose the owner reference, and a dependent
    // left with no owner is deleted in turn, unless the caller asked to orphan them.
    const uid = object.metadata.uid;
    for (const dependent of [...this.#objects.values()]) {
      const refs = dependent.metadata.ownerReferences ?? [];
      if (!refs.some((ref) => ref.uid === uid)) continue;
      const dependentKind = ALL_KINDS.find((candidate) => candidate.kind === dependent.kind && apiVersionOf(candidate) === dependent.apiVersion)!;
      const remaining = refs.filter((ref) => ref.uid !== uid);
      if (remaining.length === 0 && !orphan) {
        this.#delete(dependentKind, dependent, {});
      } else {
        const next = structuredClone(dependent);
        if (remaining.length === 0) delete next.metadata.ownerReferences;
        else next.metadata.ownerReferences = remaining;
        next.metadata.resourceVersion = String(++this.#rv);
        this.#objects.set(storeKey(dependentKind, next.metadata.namespace!, next.metadata.name), next);
        this.#record(dependentKind, 'MODIFIED', next);
      }
    }
  }

  /**
   * What the API server makes of a request body before validation: a Lease's MicroTime fields
   * must carry six fractional digits (a decode error otherwise), and fields the kind does not
   * declare are pruned, or refused with 400 under `fieldValidation=Strict`.
   */
  #decode(kind: ResourceKind, body: Record<string, unknown>, query: URLSearchParams, mode: 'write' | 'status' | 'apply' = 'write'): Record<string, unknown> {
    if (kind.kind === 'Lease' && isPlainObject(body.spec)) {
      for (const field of ['acquireTime', 'renewTime']) {
        const value = body.spec[field];
        if (value !== undefined && value !== null && (typeof value !== 'string' || !MICRO_TIME.test(value))) {
          throw new HttpProblem(400, 'BadRequest', `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse`);
        }
      }
    }
    const unknown: string[] = [];
    let decoded: Record<string, unknown> = body;
    const validator = this.#validators[kind.kind as KindName];
    if (validator?.prune !== undefined) {
      const pruned = validator.prune(body as KubeObject);
      decoded = pruned.object as Record<string, unknown>;
      unknown.push(...pruned.unknown.map((path) => `.${path}`));
    }
    const known = TOP_LEVEL_FIELDS[kind.kind];
    if (known !== undefined) {
      decoded = { ...decoded };
      for (const key of Object.keys(decoded)) {
        if (known.includes(key)) continue;
        unknown.push(`.${key}`);
        Reflect.deleteProperty(decoded, key);
      }
    }
    if (isPlainObject(decoded.metadata)) {
      const metadata = { ...decoded.metadata };
      for (const key of Object.keys(metadata)) {
        if (METADATA_FIELDS.has(key)) continue;
        unknown.push(`.metadata.${key}`);
        Reflect.deleteProperty(metadata, key);
      }
      delete metadata.managedFields;
      decoded = { ...decoded, metadata };
    }
    if (unknown.length > 0 && mode === 'apply') {
      throw new HttpProblem(500, '', `failed to create typed patch object (${String((decoded.metadata as ObjectMeta | undefined)?.namespace)}/${String((decoded.metadata as ObjectMeta | undefined)?.name)}; ${apiVersionOf(kind)}, Kind=${kind.kind}): ${unknown[0]!}: field not declared in schema`);
    }
    if (unknown.length > 0 && mode === 'status' && query.get('fieldValidation') === 'Strict') {
      throw new HttpProblem(422, 'Invalid', `${kind.kind} "${String((decoded.metadata as ObjectMeta | undefined)?.name)}" is invalid: patch: unknown field "${unknown[0]!.slice(1)}"`);
    }
    if (unknown.length > 0 && query.get('fieldValidation') === 'Strict') {
      throw new HttpProblem(400, 'BadRequest', `${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: strict decoding error: ${unknown.map((path) => `unknown field "${path.slice(1)}"`).join(', ')}`);
    }
    return decoded;
  }

  /** Server-side apply: the manager's applied leaves replace what it applied before. */
  #apply(kind: ResourceKind, namespace: string, name: string, body: Record<string, unknown>, manager: string, force: boolean): { code: number; body: unknown } {
    const applied = this.#checkShape(kind, namespace, body);
    if (applied.metadata.name !== name) throw new HttpProblem(400, 'BadRequest', 'metadata.name: does not match the name in the URL');
    const key = storeKey(kind, namespace, name);
    const current = this.#objects.get(key);
    // A resourceVersion is a precondition on an existing object only: an absent one is created.
    const precondition = current === undefined ? undefined : applied.metadata.resourceVersion;
    const wanted = leaves(applied);
    const owners = this.#owners.get(key) ?? new Map<string, Set<string>>();
    if (!force && current !== undefined) {
      const current_ = leaves(current);
      const conflicts = [...wanted.entries()].flatMap(([leaf, value]) =>
        [...owners.entries()].filter(([other, owned]) => other !== manager && owned.has(leaf) && !deepEqual(current_.get(leaf), value)).map(([other]) => `conflict with "${other}": ${pointerSegments(leaf).map((segment) => `.${segment}`).join('')}`),
      );
      if (conflicts.length > 0) throw new HttpProblem(409, 'Conflict', `Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: ${conflicts.join(', ')}`);
    }
    const next = current === undefined ? ({ apiVersion: applied.apiVersion, kind: applied.kind, metadata: { name, namespace } } as KubeObject) : structuredClone(current);
    for (const leaf of owners.get(manager) ?? []) {
      if (wanted.has(leaf) || [...owners.entries()].some(([other, owned]) => other !== manager && owned.has(leaf))) continue;
      removeLeaf(next, leaf);
    }
    for (const [leaf, value] of wanted) setLeaf(next, leaf, value);
    if (precondition !== undefined) next.metadata.resourceVersion = precondition;
    const written = current === undefined ? this.#create(kind, namespace, next) : this.#update(kind, namespace, name, next, false, false);
    if (force) for (const [other, owned] of owners) if (other !== manager) for (const leaf of wanted.keys()) owned.delete(leaf);
    owners.set(manager, new Set(wanted.keys()));
    this.#owners.set(key, owners);
    return { code: current === undefined ? 201 : 200, body: written };
  }

  /** An update by `manager` owns the leaves it changed or added; removed leaves lose every owner. */
  #own(key: string, before: KubeObject | undefined, after: KubeObject, manager: string): void {
    const old = before === undefined ? new Map<string, unknown>() : leaves(before);
    const now = leaves(after);
    const owners = this.#owners.get(key) ?? new Map<string, Set<string>>();
    for (const owned of owners.values()) for (const leaf of owned) if (!now.has(leaf)) owned.delete(leaf);
    const changed = [...now.entries()].filter(([leaf, value]) => !old.has(leaf) || !deepEqual(old.get(leaf), value)).map(([leaf]) => leaf);
    if (changed.length === 0) return;
    for (const [other, owned] of owners) if (other !== manager) for (const leaf of changed) owned.delete(leaf);
    const mine = owners.get(manager) ?? new Set<string>();
    for (const leaf of changed) mine.add(leaf);
    owners.set(manager, mine);
    this.#owners.set(key, owners);
  }

  #allocateIp(): string {
    this.#ipCounter += 1;
    return `10.96.${Math.floor(this.#ipCounter / 250)}.${this.#ipCounter % 250}`;
  }

  // -------------------------------------------------------------------------------------------
  // Watch

  #record(kind: ResourceKind, type: HistoryEvent['type'], object: KubeObject): void {
    const event: HistoryEvent = { rv: Number(object.metadata.resourceVersion), kind, type, object: structuredClone(object) };
    this.#history.push(event);
    if (this.#history.length > this.#historyLimit) {
      const dropped = this.#history.splice(0, this.#history.length - this.#historyLimit);
      this.#oldestResumable = dropped[dropped.length - 1]!.rv;
    }
    for (const watcher of this.#watchers) {
      if (!this.#matches(watcher, event)) continue;
      // Delivered after the write's response, in order, like a real API server's watch cache.
      watcher.pending.push({ type: event.type, object: event.object });
      watcher.timer ??= setTimeout(() => {
        watcher.timer = undefined;
        for (const pending of watcher.pending.splice(0)) this.#emit(watcher.response, pending.type, pending.object);
      }, this.#watchDelayMs);
    }
  }

  #matches(watcher: Watcher, event: HistoryEvent): boolean {
    return (
      watcher.kind === event.kind &&
      (watcher.namespace === undefined || event.object.metadata.namespace === watcher.namespace) &&
      watcher.selector(event.object)
    );
  }

  #emit(response: ServerResponse, type: string, object: unknown): void {
    response.write(`${JSON.stringify({ type, object })}\n`);
  }

  #watch(kind: ResourceKind, namespace: string | undefined, query: URLSearchParams, response: ServerResponse): void {
    const selector = parseSelectors(query);
    const watcher: Watcher = { kind, namespace, selector, response, pending: [], timer: undefined };
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.flushHeaders();
    const from = query.get('resourceVersion');
    if (from === null || from === '' || from === '0') {
      for (const object of this.#list(kind, namespace, selector)) this.#emit(response, 'ADDED', object);
    } else {
      const since = Number(from);
      if (!Number.isInteger(since) || since < this.#oldestResumable) {
        this.#emit(response, 'ERROR', status(410, 'Expired', `too old resource version: ${from} (${this.#oldestResumable})`));
        response.end();
        return;
      }
      for (const event of this.#history) {
        if (event.rv > since && this.#matches(watcher, event)) this.#emit(response, event.type, event.object);
      }
    }
    this.#watchers.add(watcher);
    const timeoutSeconds = Number(query.get('timeoutSeconds') ?? '0');
    const timer = timeoutSeconds > 0 ? setTimeout(() => response.end(), timeoutSeconds * 1000) : undefined;
    response.on('close', () => {
      if (timer !== undefined) clearTimeout(timer);
      if (watcher.timer !== undefined) clearTimeout(watcher.timer);
      this.#watchers.delete(watcher);
    });
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(body: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new HttpProblem(400, 'BadRequest', 'request body: invalid JSON');
  }
  if (!isPlainObject(value)) throw new HttpProblem(400, 'BadRequest', 'request body: must be an object');
  return value;
}

/** Secrets: `stringData` is write-only sugar folded into base64 `data`. */
function foldStringData(kind: ResourceKind, object: KubeObject): void {
  if (kind.kind !== 'Secret') return;
  if (isPlainObject(object.stringData)) {
    const data = { ...((object.data as Record<string, string> | undefined) ?? {}) };
    for (const [key, value] of Object.entries(object.stringData)) data[key] = Buffer.from(String(value), 'utf8').toString('base64');
    object.data = data;
  }
  delete object.stringData;
  if (object.type === undefined) object.type = 'Opaque';
}

/** A few of the defaults the real API server fills in, so controllers must compare as subsets. */
function applyDefaults(kind: ResourceKind, object: KubeObject, old: KubeObject | undefined, allocateIp: () => string): void {
  if (kind.kind === 'Deployment' && isPlainObject(object.spec)) {
    const spec = object.spec;
    spec.replicas ??= 1;
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };
    const template = isPlainObject(spec.template) ? spec.template : undefined;
    const podSpec = template !== undefined && isPlainObject(template.spec) ? template.spec : undefined;
    if (podSpec !== undefined) {
      podSpec.restartPolicy ??= 'Always';
      podSpec.dnsPolicy ??= 'ClusterFirst';
      podSpec.schedulerName ??= 'default-scheduler';
      podSpec.terminationGracePeriodSeconds ??= 30;
      podSpec.securityContext ??= {};
      for (const container of Array.isArray(podSpec.containers) ? podSpec.containers : []) {
        if (!isPlainObject(container)) continue;
        const image = typeof container.image === 'string' ? container.image : '';
        container.imagePullPolicy ??= image.endsWith(':latest') || !image.includes(':') ? 'Always' : 'IfNotPresent';
        container.terminationMessagePath ??= '/dev/termination-log';
        container.terminationMessagePolicy ??= 'File';
        for (const port of Array.isArray(container.ports) ? container.ports : []) if (isPlainObject(port)) port.protocol ??= 'TCP';
      }
    }
  }
  if (kind.kind === 'Service' && isPlainObject(object.spec)) {
    const spec = object.spec;
    const oldSpec = old !== undefined && isPlainObject(old.spec) ? old.spec : undefined;
    spec.type ??= 'ClusterIP';
    spec.sessionAffinity ??= 'None';
    // clusterIP is allocated once and immutable; an update that omits it keeps the old one.
    spec.clusterIP ??= oldSpec?.clusterIP ?? allocateIp();
    if (oldSpec !== undefined && oldSpec.clusterIP !== spec.clusterIP) {
      throw new HttpProblem(422, 'Invalid', 'spec.clusterIP: Invalid value: field is immutable');
    }
    spec.clusterIPs ??= [spec.clusterIP];
    for (const port of Array.isArray(spec.ports) ? spec.ports : []) {
      if (!isPlainObject(port)) continue;
      port.protocol ??= 'TCP';
      port.targetPort ??= port.port;
    }
  }
}

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/** Top-level fields of the built-in kinds the operator writes (others are pruned, or refused when strict). */
const TOP_LEVEL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  ConfigMap: ['apiVersion', 'kind', 'metadata', 'data', 'binaryData', 'immutable'],
  Secret: ['apiVersion', 'kind', 'metadata', 'data', 'stringData', 'type', 'immutable'],
  Lease: ['apiVersion', 'kind', 'metadata', 'spec'],
  Deployment: ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
  Service: ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
  Pod: ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
};

const METADATA_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The API server's label rules: qualified-name keys, values of at most 63 characters. */
function labelProblemsOf(labels: Record<string, string> | undefined): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    const slash = key.lastIndexOf('/');
    const prefix = slash < 0 ? undefined : key.slice(0, slash);
    const name = slash < 0 ? key : key.slice(slash + 1);
    if ((prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) || name.length > 63 || !LABEL_NAME.test(name)) {
      problems.push(`metadata.labels: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
    }
    if (typeof value !== 'string' || value.length > 63) problems.push(`metadata.labels: Invalid value: must be no more than 63 characters`);
    else if (value !== '' && !LABEL_NAME.test(value)) problems.push(`metadata.labels: Invalid value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'`);
  }
  return problems;
}

/**
 * The leaves of an object that server-side apply tracks ownership of, as JSON pointers: every
 * scalar or list under the object (lists are atomic) except identity and server-owned metadata
 * and status; owner references are keyed by uid, labels and annotations by key.
 */
function leaves(object: KubeObject): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (value: unknown, path: string): void => {
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const [key, child] of Object.entries(value)) walk(child, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    } else out.set(path, structuredClone(value));
  };
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'status') continue;
    if (key !== 'metadata') {
      walk(value, `/${key}`);
      continue;
    }
    const metadata = value as ObjectMeta;
    if (metadata.labels !== undefined) walk(metadata.labels, '/metadata/labels');
    if (metadata.annotations !== undefined) walk(metadata.annotations, '/metadata/annotations');
    for (const ref of metadata.ownerReferences ?? []) out.set(`/metadata/ownerReferences/${ref.uid}`, structuredClone(ref));
    if (metadata.finalizers !== undefined) out.set('/metadata/finalizers', [...metadata.finalizers]);
  }
  return out;
}

function pointerSegments(pointer: string): string[] {
  return pointer.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function setLeaf(object: KubeObject, pointer: string, value: unknown): void {
  const segments = pointerSegments(pointer);
  if (segments[0] === 'metadata' && segments[1] === 'ownerReferences') {
    const refs = (object.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== segments[2]);
    object.metadata.ownerReferences = [...refs, structuredClone(value) as NonNullable<ObjectMeta['ownerReferences']>[number]];
    return;
  }
  let node: Record<string, unknown> = object;
  for (const segment of segments.slice(0, -1)) {
    if (!isPlainObject(node[segment])) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[segments[segments.length - 1]!] = structuredClone(value);
}

function removeLeaf(object: KubeObject, pointer: string): void {
  const segments = pointerSegments(pointer);
  if (segments[0] === 'metadata' && segments[1] === 'ownerReferences') {
    const refs = (object.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== segments[2]);
    if (refs.length === 0) delete object.metadata.ownerReferences;
    else object.metadata.ownerReferences = refs;
    return;
  }
  let node: unknown = object;
  for (const segment of segments.slice(0, -1)) {
    if (!isPlainObject(node)) return;
    node = node[segment];
  }
  if (isPlainObject(node)) Reflect.deleteProperty(node, segments[segments.length - 1]!);
}

/** RFC 6902 on a copy: add, replace, remove, test (a failed test or a missing path is a 422). */
function applyJsonPatch(target: KubeObject, operations: unknown[]): unknown {
  const document = structuredClone(target) as unknown as Record<string, unknown>;
  const invalid = (message: string): never => {
    throw new HttpProblem(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
  };
  for (const operation of operations) {
    if (!isPlainObject(operation) || typeof operation.op !== 'string' || typeof operation.path !== 'string') return invalid('invalid JSON patch operation');
    const segments = pointerSegments(operation.path);
    let parent: unknown = document;
    for (const segment of segments.slice(0, -1)) {
      parent = Array.isArray(parent) ? parent[Number(segment)] : isPlainObject(parent) ? parent[segment] : undefined;
      if (parent === undefined) return invalid(`missing path: ${operation.path}`);
    }
    const last = segments[segments.length - 1]!;
    const container = parent as Record<string, unknown>;
    switch (operation.op) {
      case 'test':
        if (!deepEqual(container[last], operation.value)) return invalid(`testing value ${operation.path} failed`);
        break;
      case 'remove':
        if (!Object.hasOwn(container, last)) return invalid(`unable to remove nonexistent key: ${last}: missing value`);
        Reflect.deleteProperty(container, last);
        break;
      case 'replace':
        if (!Object.hasOwn(container, last)) return invalid(`replace operation does not apply: doc is missing key: ${operation.path}: missing value`);
        container[last] = structuredClone(operation.value);
        break;
      case 'add':
        container[last] = structuredClone(operation.value);
        break;
      default:
        return invalid(`unsupported operation: ${operation.op}`);
    }
  }
  return document;
}

function parseJsonArray(body: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new HttpProblem(400, 'BadRequest', 'request body: invalid JSON');
  }
  if (!Array.isArray(value)) throw new HttpProblem(400, 'BadRequest', 'request body: must be a JSON patch (an array)');
  return value;
}

/** The field manager of a non-apply write (the API server falls back to the user agent). */
function writerOf(query: URLSearchParams): string {
  return query.get('fieldManager') ?? 'unknown';
}
