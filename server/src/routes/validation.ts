// POST /v1/entity-types and POST /v1/patterns: validate a custom type name or pattern without
// persisting anything (decisions.md section 5 bodies).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { validateCustomPattern, validateEntityTypeName } from '../domain/detect/index.js';
import { EntityTypesBodySchema, PatternsBodySchema } from './schemas.js';

export function validationRoutes() {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: Static<typeof EntityTypesBodySchema> }>(
      '/v1/entity-types',
      {
        schema: {
          body: EntityTypesBodySchema,
          response: { 200: Type.Object({ valid: Type.Boolean(), type: Type.Optional(Type.String()), error: Type.Optional(Type.String()) }) },
        },
        config: { scope: 'transform' },
      },
      (request) => validateEntityTypeName(request.body.name),
    );
    app.post<{ Body: Static<typeof PatternsBodySchema> }>('/v1/patterns', { schema: { body: PatternsBodySchema }, config: { scope: 'transform' } }, (request) => {
      const { sample, ...pattern } = request.body;
      return validateCustomPattern({ entity_type: pattern.entity_type ?? 'pattern', ...pattern }, sample);
    });
  };
}
