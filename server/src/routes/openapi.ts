// GET /openapi.json (the OpenAPI 3.1 document of this server) and GET /openapi.html (the same,
// rendered). Scope `authenticated`: any valid credential, like /v1/capabilities; in dev mode that
// is everyone. The document is static apart from the configured limits (batch sizes) and is
// committed as docs/openapi.json (drift test: openapi.test.ts), so keeping it behind a credential
// hides nothing from a reader of the repository, while the unauthenticated surface stays the two
// probes. Built once, on the first request, when every route is registered.
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument, type CollectedRoute } from '../openapi/document.js';
import { renderReference } from '../openapi/html.js';

/** `routes` is the list collectRoutes fills (complete by the first request). */
export function openApiRoutes(version: string, routes: readonly CollectedRoute[]) {
  return function register(app: FastifyInstance): void {
    let json: string | undefined;
    let html: string | undefined;
    const documentJson = (): string => (json ??= `${JSON.stringify(buildOpenApiDocument(routes, version), null, 2)}\n`);
    app.get('/openapi.json', { config: { scope: 'authenticated' } }, (_request, reply) => reply.type('application/json; charset=utf-8').send(documentJson()));
    app.get('/openapi.html', { config: { scope: 'authenticated' } }, (_request, reply) => {
      html ??= renderReference(JSON.parse(documentJson()) as Record<string, unknown>);
      // Self-contained: no script, inline styles only, nothing loaded from elsewhere.
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        .send(html);
    });
  };
}
