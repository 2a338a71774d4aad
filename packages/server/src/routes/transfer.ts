import { createRoute, z } from '@hono/zod-openapi';
import { requireFull, requireNamespace } from '../auth.ts';
import type { RouteDeps, ServiceApp } from '../service-app.ts';
import { ImportResultSchema, NamespaceQuery } from '../schemas.ts';
import { errors, json, namespaceOf, security, writeOptions } from './route-helpers.ts';

const NDJSON = 'application/x-ndjson';

/** export (a namespace or a whole user) and import, as zeromem JSONL. */
export function registerTransferRoutes(app: ServiceApp, { memory }: RouteDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/export',
      operationId: 'exportNamespace',
      summary: 'Export a namespace as zeromem JSONL (header line, then one line per memory)',
      security,
      request: { query: NamespaceQuery.extend({ vectors: z.enum(['true', 'false']).optional().openapi({ param: { name: 'vectors', in: 'query' } }) }) },
      responses: { 200: { description: 'JSONL', content: { [NDJSON]: { schema: z.string() } } }, ...errors() },
    }),
    async (c) => {
      const { vectors, ...ns } = c.req.valid('query');
      const namespace = namespaceOf(ns);
      requireNamespace(c.get('access'), namespace, 'read');
      const text = await memory.exportJsonl({ namespace }, { vectors: vectors === 'true' });
      return c.body(text, 200, { 'Content-Type': NDJSON }) as never; // a JSONL body, not JSON
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/users/{userId}/export',
      operationId: 'exportUser',
      summary: 'Export every namespace of a user as zeromem JSONL (service token only)',
      security,
      request: { params: z.object({ userId: z.string().openapi({ param: { name: 'userId', in: 'path' } }) }) },
      responses: { 200: { description: 'JSONL', content: { [NDJSON]: { schema: z.string() } } }, ...errors() },
    }),
    async (c) => {
      requireFull(c.get('access'), "Exporting a whole user");
      const text = await memory.exportJsonl({ userId: c.req.valid('param').userId });
      return c.body(text, 200, { 'Content-Type': NDJSON }) as never; // a JSONL body, not JSON
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/import',
      operationId: 'importJsonl',
      summary: 'Import zeromem JSONL (what export wrote): every line validated first, all or nothing unless skipInvalid (service token only)',
      security,
      request: {
        query: z.object({ skipInvalid: z.enum(['true', 'false']).optional().openapi({ param: { name: 'skipInvalid', in: 'query' } }) }),
        body: { required: true, content: { [NDJSON]: { schema: z.string() } } },
      },
      responses: { 200: { description: 'What was imported', ...json(ImportResultSchema) }, ...errors(409, 413, 507) },
    }),
    async (c) => {
      requireFull(c.get('access'), 'Importing');
      const text = await c.req.text();
      const result = await memory.importJsonl(text, { skipInvalid: c.req.valid('query').skipInvalid === 'true', ...writeOptions(c) });
      return c.json(result, 200);
    },
  );
}
