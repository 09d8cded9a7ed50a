// The KubeClient against a real API server. Requests go over node:http(s) with the credentials
// and TLS settings @kubernetes/client-node derives from a kubeconfig or the in-cluster service
// account (re-read per request, so a rotated projected token is picked up); watches use the
// library's Watch. The client speaks JSON as-is rather than through the library's typed
// serializers, which drop fields they do not know and so would hide exactly what strict field
// validation is for. Every write carries `fieldValidation=Strict` (an unknown or duplicate field
// is a 400, not silently pruned) and the operator's field manager; `apply` is server-side apply.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest, type Agent } from 'node:https';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import type { ApplyOptions, DeleteOptions, JsonPatchOperation, KubeClient, ListOptions, ListResult, WatchCallbacks, WatchHandle, WatchOptions } from './client.js';
import { isPlainObject } from './json.js';
import { collectionPath, FIELD_MANAGER, KINDS, KubeApiError, objectPath, type KindName, type KubeObject } from './types.js';

/** KUBECONFIG (or ~/.kube/config) when present, else the in-cluster service account. */
export function loadKubeConfig(options: { kubeconfigPath?: string; kubeconfigYaml?: string } = {}): KubeConfig {
  const config = new KubeConfig();
  if (options.kubeconfigYaml !== undefined) config.loadFromString(options.kubeconfigYaml);
  else if (options.kubeconfigPath !== undefined) config.loadFromFile(options.kubeconfigPath);
  else config.loadFromDefault();
  return config;
}

const REQUEST_TIMEOUT_MS = 30_000;

function retryAfterOf(response: IncomingMessage): number | undefined {
  const value = response.headers['retry-after'];
  const seconds = typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(seconds) ? seconds : undefined;
}

/** A Kubernetes Status body (or anything else) -> KubeApiError. */
function statusError(code: number, body: unknown, retryAfterSeconds?: number): KubeApiError {
  const reason = isPlainObject(body) && typeof body['reason'] === 'string' ? body['reason'] : 'Unknown';
  const message = isPlainObject(body) && typeof body['message'] === 'string' ? body['message'] : `HTTP ${code}`;
  return new KubeApiError(code, reason, message, retryAfterSeconds);
}

/** A watch error with statusCode (the library's) -> KubeApiError; anything else unchanged. */
export function toKubeError(error: unknown): unknown {
  if (error instanceof KubeApiError) return error;
  if (error instanceof Error && typeof (error as { statusCode?: unknown }).statusCode === 'number') {
    const code = (error as unknown as { statusCode: number }).statusCode;
    return new KubeApiError(code, code === 410 ? 'Expired' : 'Unknown', error.message);
  }
  return error;
}

type Query = Record<string, string | undefined>;

export class RealKubeClient implements KubeClient {
  readonly #watch: Watch;
  #agent: Agent | undefined;

  constructor(readonly config: KubeConfig) {
    this.#watch = new Watch(config);
  }

  /** One API request; resolves with the parsed JSON body, rejects with KubeApiError on a non-2xx. */
  async #request(method: string, path: string, query: Query = {}, body?: { contentType: string; value: unknown }): Promise<unknown> {
    const cluster = this.config.getCurrentCluster();
    if (cluster === null) throw new Error('kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/$/, '') + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
    const options: RequestOptions & { agent?: Agent } = {};
    await this.config.applyToHTTPSOptions(options);
    // One keep-alive agent per client: its TLS material comes from the kubeconfig and does not
    // change; the Authorization header is re-applied on every request.
    if (url.protocol === 'https:') this.#agent ??= options.agent as Agent | undefined;
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body.value));
    const headers: Record<string, string> = { Accept: 'application/json' };
    for (const [key, value] of Object.entries(options.headers ?? {})) if (typeof value === 'string') headers[key] = value;
    if (payload !== undefined && body !== undefined) {
      headers['Content-Type'] = body.contentType;
      headers['Content-Length'] = String(payload.length);
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(url, { method, headers, ...(url.protocol === 'https:' ? { agent: this.#agent } : {}), timeout: REQUEST_TIMEOUT_MS }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            // not JSON: the status code says enough
          }
          const code = response.statusCode ?? 0;
          if (code >= 200 && code < 300) resolve(parsed);
          else reject(statusError(code, parsed, retryAfterOf(response)));
        });
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  async get<T extends KubeObject = KubeObject>(kind: KindName, namespace: string, name: string): Promise<T | undefined> {
    try {
      return (await this.#request('GET', objectPath(KINDS[kind], namespace, name))) as T;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  async list(kind: KindName, namespace: string | undefined, options: ListOptions = {}): Promise<ListResult> {
    const descriptor = KINDS[kind];
    const list = (await this.#request('GET', collectionPath(descriptor, namespace), { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector })) as {
      items?: KubeObject[];
      metadata?: { resourceVersion?: string };
    };
    // List items carry no apiVersion/kind on the wire; restore them so callers see whole objects.
    const apiVersion = descriptor.group === '' ? descriptor.version : `${descriptor.group}/${descriptor.version}`;
    const items = (list.items ?? []).map((item) => ({ ...item, apiVersion, kind: descriptor.kind }));
    return { items, resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  async watch(kind: KindName, namespace: string | undefined, options: WatchOptions, callbacks: WatchCallbacks): Promise<WatchHandle> {
    let stopped = false;
    let closed = false;
    let failure: unknown;
    const finish = (error: unknown): void => {
      if (closed) return;
      closed = true;
      if (!stopped) callbacks.onClose(failure ?? (error === null ? undefined : toKubeError(error)));
    };
    const query: Record<string, string | boolean> = { allowWatchBookmarks: true, resourceVersion: options.resourceVersion };
    if (options.labelSelector !== undefined) query['labelSelector'] = options.labelSelector;
    if (options.fieldSelector !== undefined) query['fieldSelector'] = options.fieldSelector;
    const controller = await this.#watch.watch(
      collectionPath(KINDS[kind], namespace),
      query,
      (phase: string, object: unknown) => {
        if (stopped || closed) return;
        if (phase === 'ERROR') {
          // The API server ends a watch it cannot serve (410 Expired) with an ERROR event.
          const body = isPlainObject(object) ? object : {};
          failure = statusError(typeof body['code'] === 'number' ? body['code'] : 500, body);
          return;
        }
        if (phase !== 'ADDED' && phase !== 'MODIFIED' && phase !== 'DELETED' && phase !== 'BOOKMARK') return;
        callbacks.onEvent({ type: phase, object: object as KubeObject });
      },
      finish,
    );
    return {
      stop: () => {
        stopped = true;
        controller.abort();
      },
    };
  }

  async create<T extends KubeObject>(kind: KindName, object: T): Promise<T> {
    return (await this.#request('POST', collectionPath(KINDS[kind], object.metadata.namespace), writeQuery(), { contentType: 'application/json', value: object })) as T;
  }

  async replace<T extends KubeObject>(kind: KindName, object: T): Promise<T> {
    return (await this.#request('PUT', objectPath(KINDS[kind], object.metadata.namespace ?? '', object.metadata.name), writeQuery(), { contentType: 'application/json', value: object })) as T;
  }

  async apply<T extends KubeObject>(kind: KindName, object: T, options: ApplyOptions = {}): Promise<T> {
    const query = { ...writeQuery(options.fieldManager), force: options.force === false ? undefined : 'true' };
    // An apply configuration is YAML; JSON is YAML, and needs no YAML 1.1/1.2 care.
    return (await this.#request('PATCH', objectPath(KINDS[kind], object.metadata.namespace ?? '', object.metadata.name), query, { contentType: 'application/apply-patch+yaml', value: object })) as T;
  }

  async patch<T extends KubeObject>(kind: KindName, namespace: string, name: string, operations: readonly JsonPatchOperation[]): Promise<T> {
    return (await this.#request('PATCH', objectPath(KINDS[kind], namespace, name), writeQuery(), { contentType: 'application/json-patch+json', value: operations })) as T;
  }

  async patchStatus<T extends KubeObject>(kind: KindName, namespace: string, name: string, status: Record<string, unknown>, resourceVersion?: string): Promise<T> {
    const descriptor = KINDS[kind];
    if (descriptor.group === '' || !descriptor.statusSubresource) throw new Error(`patchStatus supports custom resources only, not ${kind}`);
    const body: Record<string, unknown> = { status };
    if (resourceVersion !== undefined) body['metadata'] = { resourceVersion };
    return (await this.#request('PATCH', `${objectPath(descriptor, namespace, name)}/status`, writeQuery(), { contentType: 'application/merge-patch+json', value: body })) as T;
  }

  async delete(kind: KindName, namespace: string, name: string, options: DeleteOptions = {}): Promise<void> {
    const preconditions = { ...(options.uid === undefined ? {} : { uid: options.uid }), ...(options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion }) };
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: options.propagationPolicy ?? 'Background',
      ...(Object.keys(preconditions).length === 0 ? {} : { preconditions }),
    };
    try {
      await this.#request('DELETE', objectPath(KINDS[kind], namespace, name), {}, { contentType: 'application/json', value: body });
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return;
      throw error;
    }
  }
}

function writeQuery(fieldManager: string = FIELD_MANAGER): Query {
  return { fieldManager, fieldValidation: 'Strict' };
}
