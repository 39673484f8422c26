// Scenario `registration`'s OpenAPI document of N operations (a GET and a POST per path, bodies from 20 shared
// components), and the same operations as SDK v1 tools written by hand with zod.

import * as z from 'zod/v4';

/** Component schemas the POST bodies point at with `$ref`. */
const COMPONENTS = 20;

/** An OpenAPI 3.1 document of `operations` operations: `getItem<j>` (path id, two query parameters) and `upsertItem<j>` (path id, a JSON body). */
export function openApiDocument(operations: number): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (let k = 0; k < COMPONENTS; k++) {
    schemas[`Item${k}`] = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        size: { type: 'integer', minimum: 0 },
        tags: { type: 'array', items: { type: 'string' } },
        [`note${k}`]: { type: 'string' },
      },
      required: ['name'],
    };
  }
  const paths: Record<string, unknown> = {};
  for (let j = 0; j < operations / 2; j++) {
    paths[`/items${j}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: `getItem${j}`,
        summary: `Read item ${j}`,
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
        ],
      },
      post: {
        operationId: `upsertItem${j}`,
        summary: `Create or replace item ${j}`,
        requestBody: {
          content: { 'application/json': { schema: { $ref: `#/components/schemas/Item${j % COMPONENTS}` } } },
        },
      },
    };
  }
  return { openapi: '3.1.0', info: { title: 'bench', version: '1.0.0' }, paths, components: { schemas } };
}

/** The same operations as SDK v1 `registerTool` arguments: the flat input the router's bridge makes, in zod. */
export function operationShapes(
  operations: number,
): Array<{ name: string; description: string; shape: Record<string, z.ZodType> }> {
  const shapes: Array<{ name: string; description: string; shape: Record<string, z.ZodType> }> = [];
  for (let j = 0; j < operations / 2; j++) {
    shapes.push({
      name: `getItem${j}`,
      description: `Read item ${j}`,
      shape: { id: z.string(), limit: z.number().int().min(1).optional(), q: z.string().optional() },
    });
    shapes.push({
      name: `upsertItem${j}`,
      description: `Create or replace item ${j}`,
      shape: {
        id: z.string(),
        name: z.string().min(1),
        size: z.number().int().min(0).optional(),
        tags: z.array(z.string()).optional(),
        [`note${j % COMPONENTS}`]: z.string().optional(),
      },
    });
  }
  return shapes;
}
