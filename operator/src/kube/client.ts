// The narrow Kubernetes client the operator is written against. One real implementation
// (real-client.ts) and the API simulator of the fault-injection tests stand behind it;
// client.suite.ts is the conformance suite both must pass, against a real API server in
// `make test`. Every call is namespaced: the operator owns nothing cluster-scoped. Writes
// request strict field validation and carry the operator's field manager.
import type { KindName, KubeObject } from './types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject;
}

export interface ListResult {
  readonly items: KubeObject[];
  /** The collection's resourceVersion: where a watch continues from. */
  readonly resourceVersion: string;
}

export interface ListOptions {
  /** A label selector in the API's syntax: `a=b,c!=d`, `tier in (x,y)`, `!gone`. */
  readonly labelSelector?: string;
  /** A field selector; the operator uses `metadata.name=<name>` (RBAC resourceNames then allow list and watch). */
  readonly fieldSelector?: string;
}

export interface WatchOptions extends ListOptions {
  /** Continue after this version; an expired one ends the watch with a 410 KubeApiError. */
  readonly resourceVersion: string;
}

export interface WatchHandle {
  stop(): void;
}

export interface WatchCallbacks {
  onEvent(event: WatchEvent): void;
  /** Called once when the stream ends: undefined for a clean close, else the error (410 = relist). */
  onClose(error: unknown): void;
}

export interface DeleteOptions {
  /** Precondition: delete only the object with this uid. */
  readonly uid?: string;
  /** Precondition: delete only this version of the object (409 otherwise). */
  readonly resourceVersion?: string;
  /** Background (default) lets the garbage collector remove dependents. */
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

export interface ApplyOptions {
  /** Take over fields another manager owns (default true: the operator owns what it applies). */
  readonly force?: boolean;
  /** Field manager (default FIELD_MANAGER, the operator's). */
  readonly fieldManager?: string;
}

/** One RFC 6902 operation; the operator uses `test` and `remove`. */
export type JsonPatchOperation = { readonly op: 'test' | 'add' | 'replace'; readonly path: string; readonly value: unknown } | { readonly op: 'remove'; readonly path: string };

export interface KubeClient {
  /** The object, or undefined when it does not exist. */
  get<T extends KubeObject = KubeObject>(kind: KindName, namespace: string, name: string): Promise<T | undefined>;
  /** `namespace` undefined lists across all namespaces. */
  list(kind: KindName, namespace: string | undefined, options?: ListOptions): Promise<ListResult>;
  watch(kind: KindName, namespace: string | undefined, options: WatchOptions, callbacks: WatchCallbacks): Promise<WatchHandle>;
  /** Fails with 409 AlreadyExists when the name is taken. */
  create<T extends KubeObject>(kind: KindName, object: T): Promise<T>;
  /** Optimistic concurrency: `metadata.resourceVersion` must be current, else 409 Conflict. */
  replace<T extends KubeObject>(kind: KindName, object: T): Promise<T>;
  /**
   * Server-side apply of `object` (the fields this manager owns; omitted fields it owned are
   * removed). Creates the object when absent. A `metadata.resourceVersion` in `object` is a
   * precondition (409 when the object has moved on).
   */
  apply<T extends KubeObject>(kind: KindName, object: T, options?: ApplyOptions): Promise<T>;
  /** RFC 6902 JSON patch (a `test` operation makes it conditional). */
  patch<T extends KubeObject>(kind: KindName, namespace: string, name: string, operations: readonly JsonPatchOperation[]): Promise<T>;
  /**
   * JSON merge patch of the status subresource. With `resourceVersion` the patch applies only
   * to that version (409 otherwise), so a status computed from a stale read is never written.
   */
  patchStatus<T extends KubeObject>(kind: KindName, namespace: string, name: string, status: Record<string, unknown>, resourceVersion?: string): Promise<T>;
  /** Resolves when the object is gone or marked for deletion; a missing object is not an error. */
  delete(kind: KindName, namespace: string, name: string, options?: DeleteOptions): Promise<void>;
}
