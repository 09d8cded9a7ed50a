// Replica reporters: what each ready server replica says it has loaded, from GET
// /v1/diagnostics. Rotation advances only on these reports. The real reporter lists the server
// Pods (label selector) and asks every ready one; the URL reporter asks a fixed list of servers
// (the no-Kubernetes path and tests). A replica that does not answer is reported with the
// reason, so the phase waits on it: it never counts as confirmed, and never times out into
// being skipped.
import type { KubeClient } from '../kube/client.js';
import type { Pod } from '../kube/types.js';

export interface ReplicaSnapshot {
  readonly name: string;
  /** Loaded key-ring generation per tenant id ('' = the platform ring); absent when the replica did not answer. */
  readonly rings?: ReadonlyMap<string, string | number>;
  readonly error?: string;
}

export type ReplicaSurvey = { readonly replicas: readonly ReplicaSnapshot[] } | { readonly error: string };

export interface ReplicaReporter {
  /** Every ready replica with what it reports. */
  survey(): Promise<ReplicaSurvey>;
}

/**
 * Loaded key rings from a /v1/diagnostics body: `key_rings: [{tenant, generation}]`, where
 * `tenant` null is the platform ring. Unknown shapes give an empty map (nothing confirmed).
 */
export function parseDiagnostics(body: unknown): Map<string, string | number> {
  const rings = new Map<string, string | number>();
  if (body === null || typeof body !== 'object') return rings;
  const list = (body as Record<string, unknown>).key_rings;
  if (!Array.isArray(list)) return rings;
  for (const entry of list) {
    if (entry === null || typeof entry !== 'object') continue;
    const { tenant, generation } = entry as Record<string, unknown>;
    if (tenant !== null && typeof tenant !== 'string') continue;
    if (typeof generation !== 'string' && typeof generation !== 'number') continue;
    rings.set(tenant ?? '', generation);
  }
  return rings;
}

export interface Endpoint {
  readonly name: string;
  /** Base URL, e.g. http://10.0.0.7:3000 */
  readonly url: string;
}

export interface HttpReporterOptions {
  /** Credential for /v1/diagnostics (admin scope) when the servers require one. */
  readonly apiKey?: () => Promise<string | undefined>;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

async function ask(endpoint: Endpoint, options: HttpReporterOptions): Promise<ReplicaSnapshot> {
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = await options.apiKey?.();
  if (key !== undefined) headers['x-api-key'] = key;
  try {
    const response = await doFetch(`${endpoint.url}/v1/diagnostics`, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 3000) });
    if (!response.ok) {
      await response.body?.cancel();
      return { name: endpoint.name, error: `diagnostics answered ${response.status}` };
    }
    return { name: endpoint.name, rings: parseDiagnostics(await response.json()) };
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? 'diagnostics timed out' : 'diagnostics unreachable';
    return { name: endpoint.name, error: reason };
  }
}

/** Asks a fixed set of server URLs (every one counts as a ready replica). */
export class UrlReplicaReporter implements ReplicaReporter {
  constructor(
    private readonly endpoints: () => readonly Endpoint[],
    private readonly options: HttpReporterOptions = {},
  ) {}

  async survey(): Promise<ReplicaSurvey> {
    return { replicas: await Promise.all(this.endpoints().map((endpoint) => ask(endpoint, this.options))) };
  }
}

export function isPodReady(pod: Pod): boolean {
  return (
    pod.metadata.deletionTimestamp === undefined &&
    pod.status?.phase === 'Running' &&
    typeof pod.status.podIP === 'string' &&
    pod.status.podIP !== '' &&
    (pod.status.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True')
  );
}

/** The in-cluster reporter: ready Pods matching the server selector, asked on their Pod IP. */
export class PodReplicaReporter implements ReplicaReporter {
  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly selector: string,
    private readonly port: number,
    private readonly options: HttpReporterOptions & { readonly scheme?: 'http' | 'https' } = {},
  ) {}

  async survey(): Promise<ReplicaSurvey> {
    let pods: Pod[];
    try {
      pods = (await this.client.list('Pod', this.namespace, { labelSelector: this.selector })).items;
    } catch {
      return { error: `cannot list Pods with selector ${this.selector}` };
    }
    const scheme = this.options.scheme ?? 'http';
    const ready = pods.filter(isPodReady).map((pod) => {
      const ip = pod.status!.podIP!;
      const host = ip.includes(':') ? `[${ip}]` : ip;
      return { name: pod.metadata.name, url: `${scheme}://${host}:${this.port}` };
    });
    return { replicas: await Promise.all(ready.map((endpoint) => ask(endpoint, this.options))) };
  }
}
