// The KubeClient on @kubernetes/client-node 1.4: KubernetesObjectApi for CRUD (it discovers
// plurals through the API's discovery documents), CustomObjectsApi for the status subresource
// of our CRDs, and the library's Watch for event streams. Results are normalised to plain JSON
// (the library turns timestamps into Date objects) and failures into KubeApiError.
import {
  ApiException,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  V1DeleteOptions,
  V1ObjectMeta,
  V1Preconditions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { DeleteOptions, KubeClient, ListOptions, ListResult, WatchCallbacks, WatchHandle, WatchOptions } from './client.js';
import { isPlainObject } from './json.js';
import { apiVersionOf, collectionPath, KINDS, KubeApiError, type KindName, type KubeObject } from './types.js';

/** KUBECONFIG (or ~/.kube/config) when present, else the in-cluster service account. */
export function loadKubeConfig(options: { kubeconfigPath?: string; kubeconfigYaml?: string } = {}): KubeConfig {
  const config = new KubeConfig();
  if (options.kubeconfigYaml !== undefined) config.loadFromString(options.kubeconfigYaml);
  else if (options.kubeconfigPath !== undefined) config.loadFromFile(options.kubeconfigPath);
  else config.loadFromDefault();
  return config;
}

// The one place untyped API data becomes a typed object (callers name the shape they expect).
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
function plain<T>(value: unknown): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function retryAfterOf(headers: unknown): number | undefined {
  if (!isPlainObject(headers)) return undefined;
  const value = headers['retry-after'] ?? headers['Retry-After'];
  const seconds = typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(seconds) ? seconds : undefined;
}

/** ApiException (or a watch error with statusCode) -> KubeApiError; anything else unchanged. */
export function toKubeError(error: unknown): unknown {
  if (error instanceof KubeApiError) return error;
  if (error instanceof ApiException) {
    let body: unknown = error.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        // not JSON: keep the status code only
      }
    }
    const reason = isPlainObject(body) && typeof body.reason === 'string' ? body.reason : 'Unknown';
    const message = isPlainObject(body) && typeof body.message === 'string' ? body.message : `HTTP ${error.code}`;
    return new KubeApiError(error.code, reason, message, retryAfterOf(error.headers));
  }
  if (error instanceof Error && typeof (error as { statusCode?: unknown }).statusCode === 'number') {
    const code = (error as unknown as { statusCode: number }).statusCode;
    return new KubeApiError(code, code === 410 ? 'Expired' : 'Unknown', error.message);
  }
  return error;
}

async function call<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toKubeError(error);
  }
}

export class RealKubeClient implements KubeClient {
  readonly #objects: KubernetesObjectApi;
  readonly #custom: CustomObjectsApi;
  readonly #watch: Watch;

  constructor(readonly config: KubeConfig) {
    this.#objects = KubernetesObjectApi.makeApiClient(config);
    this.#custom = config.makeApiClient(CustomObjectsApi);
    this.#watch = new Watch(config);
  }

  async get<T extends KubeObject = KubeObject>(kind: KindName, namespace: string, name: string): Promise<T | undefined> {
    const descriptor = KINDS[kind];
    try {
      const object = await this.#objects.read({ apiVersion: apiVersionOf(descriptor), kind: descriptor.kind, metadata: { name, namespace } });
      return plain<T>(object);
    } catch (error) {
      const translated = toKubeError(error);
      if (translated instanceof KubeApiError && translated.status === 404) return undefined;
      throw translated;
    }
  }

  async list(kind: KindName, namespace: string | undefined, options: ListOptions = {}): Promise<ListResult> {
    const descriptor = KINDS[kind];
    const result = await call(() =>
      this.#objects.list(apiVersionOf(descriptor), descriptor.kind, namespace, undefined, undefined, undefined, undefined, options.labelSelector),
    );
    const list = plain<{ items?: KubeObject[]; metadata?: { resourceVersion?: string } }>(result);
    // List items carry no apiVersion/kind on the wire; restore them so callers see whole objects.
    const items = (list.items ?? []).map((item) => ({ ...item, apiVersion: apiVersionOf(descriptor), kind: descriptor.kind }));
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
    if (options.labelSelector !== undefined) query.labelSelector = options.labelSelector;
    const controller = await this.#watch.watch(
      collectionPath(KINDS[kind], namespace),
      query,
      (phase: string, object: unknown) => {
        if (stopped || closed) return;
        if (phase === 'ERROR') {
          // The API server ends a watch it cannot serve (410 Expired) with an ERROR event.
          const body = isPlainObject(object) ? object : {};
          const code = typeof body.code === 'number' ? body.code : 500;
          failure = new KubeApiError(code, typeof body.reason === 'string' ? body.reason : 'Unknown', typeof body.message === 'string' ? body.message : 'watch error');
          return;
        }
        if (phase !== 'ADDED' && phase !== 'MODIFIED' && phase !== 'DELETED' && phase !== 'BOOKMARK') return;
        callbacks.onEvent({ type: phase, object: plain<KubeObject>(object) });
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

  async create<T extends KubeObject>(_kind: KindName, object: T): Promise<T> {
    return plain<T>(await call(() => this.#objects.create(object as unknown as KubernetesObject)));
  }

  async replace<T extends KubeObject>(_kind: KindName, object: T): Promise<T> {
    return plain<T>(await call(() => this.#objects.replace(object as unknown as KubernetesObject)));
  }

  async patchStatus<T extends KubeObject>(kind: KindName, namespace: string, name: string, status: Record<string, unknown>, resourceVersion?: string): Promise<T> {
    const descriptor = KINDS[kind];
    if (descriptor.group === '' || !descriptor.statusSubresource) throw new Error(`patchStatus supports custom resources only, not ${kind}`);
    const body: Record<string, unknown> = { status };
    if (resourceVersion !== undefined) body.metadata = { resourceVersion };
    const result: unknown = await call(() =>
      this.#custom.patchNamespacedCustomObjectStatus(
        { group: descriptor.group, version: descriptor.version, namespace, plural: descriptor.plural, name, body },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    return plain<T>(result);
  }

  async delete(kind: KindName, namespace: string, name: string, options: DeleteOptions = {}): Promise<void> {
    const descriptor = KINDS[kind];
    try {
      await this.#objects.delete(
        { apiVersion: apiVersionOf(descriptor), kind: descriptor.kind, metadata: Object.assign(new V1ObjectMeta(), { name, namespace }) },
        undefined,
        undefined,
        undefined,
        undefined,
        options.propagationPolicy ?? 'Background',
        options.uid === undefined ? undefined : Object.assign(new V1DeleteOptions(), { preconditions: Object.assign(new V1Preconditions(), { uid: options.uid }) }),
      );
    } catch (error) {
      const translated = toKubeError(error);
      if (translated instanceof KubeApiError && translated.status === 404) return;
      throw translated;
    }
  }
}
