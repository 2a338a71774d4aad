import { createRoute, z } from '@hono/zod-openapi';
import type { RecordFilter } from '@zeromem/core';
import { requireFull, requireNamespace } from '../auth.ts';
import type { RouteDeps, ServiceApp } from '../service-app.ts';
import { AuditEntrySchema, CountSchema, ForgetWhereBodySchema, IdsSchema, NamespaceQuery, NamespacesSchema, StatsSchema } from '../schemas.ts';
import { errors, json, namespaceOf, security, writeOptions } from './route-helpers.ts';

/** forget where / a namespace / a user, namespaces, audit and stats. */
export function registerAdminRoutes(app: ServiceApp, { memory }: RouteDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/forget',
      operationId: 'forgetWhere',
      summary: 'Forget the memories of a namespace that match a (non-empty) filter',
      security,
      request: { body: { required: true, ...json(ForgetWhereBodySchema) } },
      responses: { 200: { description: 'Ids forgotten', ...json(IdsSchema) }, ...errors() },
    }),
    async (c) => {
      const { namespace, filter } = c.req.valid('json');
      requireNamespace(c.get('access'), namespace, 'write');
      return c.json({ ids: await memory.forgetWhere(namespace, filter as RecordFilter, writeOptions(c)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/namespaces',
      operationId: 'forgetNamespace',
      summary: 'Forget every memory of exactly this namespace',
      security,
      request: { query: NamespaceQuery },
      responses: { 200: { description: 'How many were forgotten', ...json(CountSchema) }, ...errors() },
    }),
    async (c) => {
      const namespace = namespaceOf(c.req.valid('query'));
      requireNamespace(c.get('access'), namespace, 'write');
      return c.json({ count: await memory.forgetNamespace(namespace, writeOptions(c)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/namespaces',
      operationId: 'listNamespaces',
      summary: 'The namespaces holding memories (of one user with userId); a limited token sees its own',
      security,
      request: { query: z.object({ userId: z.string().optional().openapi({ param: { name: 'userId', in: 'query' } }) }) },
      responses: { 200: { description: 'Namespaces, ordered by key', ...json(NamespacesSchema) }, ...errors() },
    }),
    async (c) => {
      const { userId } = c.req.valid('query');
      const access = c.get('access');
      const namespaces = await memory.listNamespaces(userId === undefined ? undefined : { userId });
      const visible = access.full ? namespaces : namespaces.filter((namespace) => isReadable(access, namespace));
      return c.json({ namespaces: visible }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/users/{userId}',
      operationId: 'forgetUser',
      summary: 'Forget every memory of a user, in all of their namespaces (service token only)',
      security,
      request: { params: z.object({ userId: z.string().openapi({ param: { name: 'userId', in: 'path' } }) }) },
      responses: { 200: { description: 'How many were forgotten', ...json(CountSchema) }, ...errors() },
    }),
    async (c) => {
      requireFull(c.get('access'), 'Forgetting a whole user');
      return c.json({ count: await memory.forgetUser(c.req.valid('param').userId, writeOptions(c)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/audit',
      operationId: 'getAudit',
      summary: "The namespace's audit log (no content), oldest first; page with after",
      security,
      request: {
        query: NamespaceQuery.extend({
          after: z.coerce.number().int().optional().openapi({ param: { name: 'after', in: 'query' } }),
          limit: z.coerce.number().int().optional().openapi({ param: { name: 'limit', in: 'query' } }),
        }),
      },
      responses: { 200: { description: 'Entries', ...json(z.object({ entries: z.array(AuditEntrySchema) }).strict()) }, ...errors() },
    }),
    async (c) => {
      const { after, limit, ...ns } = c.req.valid('query');
      const namespace = namespaceOf(ns);
      requireNamespace(c.get('access'), namespace, 'read');
      const entries = await memory.audit(namespace, { ...(after === undefined ? {} : { after }), ...(limit === undefined ? {} : { limit }) });
      return c.json({ entries }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/stats',
      operationId: 'getStats',
      summary: 'Counts, sizes and time span of a namespace',
      security,
      request: { query: NamespaceQuery },
      responses: { 200: { description: 'Statistics', ...json(StatsSchema) }, ...errors() },
    }),
    async (c) => {
      const namespace = namespaceOf(c.req.valid('query'));
      requireNamespace(c.get('access'), namespace, 'read');
      return c.json(await memory.stats(namespace), 200);
    },
  );
}

function isReadable(access: Parameters<typeof requireNamespace>[0], namespace: Parameters<typeof requireNamespace>[1]): boolean {
  try {
    requireNamespace(access, namespace, 'read');
    return true;
  } catch {
    return false;
  }
}
