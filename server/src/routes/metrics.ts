// GET /metrics (scope admin, untenanted callers only: 'platform_admin'): the Prometheus text
// exposition. The counters are process-wide and carry no tenant label, so they cannot be cut
// down to one tenant; a tenant-bound admin key gets 403 VEIL_SCOPE_DENIED instead. In a cluster the worker that
// accepted the scrape asks the primary for every worker's metrics merged (prom-client's
// AggregatorRegistry), so counters are the server's totals, not one worker's share; when that
// collection fails the scrape fails (503) rather than report a partial sum that would look like
// a counter reset.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import type { ClusterLink } from '../cluster/worker.js';
import type { VeilMetrics } from '../metrics/registry.js';

/** This process's metrics, and the channel to the primary that merges every worker's. */
export interface MetricsRouteDeps {
  readonly metrics: VeilMetrics;
  readonly cluster?: ClusterLink | undefined;
}

export function metricsRoutes(deps: MetricsRouteDeps) {
  return function register(app: FastifyInstance): void {
    // A scrape is never charged to the caller's rate limit (plugins/rate-limit.ts).
    app.get('/metrics', { config: { scope: 'platform_admin', rateLimit: false } }, async (_request, reply) => {
      let text: string;
      if (deps.cluster === undefined) text = await deps.metrics.text();
      else {
        try {
          text = await deps.cluster.metricsText();
        } catch (error) {
          throw new VeilError('VEIL_NOT_READY', 'metrics are not available right now', `cluster metrics: ${error instanceof Error ? error.message : 'failed'}`);
        }
      }
      return reply.type(deps.metrics.contentType).send(text);
    });
  };
}
