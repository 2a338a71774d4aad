import { createRoute, z } from '@hono/zod-openapi';
import { ZeromemError } from '@zeromem/core';
import type { ZodError } from 'zod';
import { recordsAccess, requireNamespace } from '../auth.ts';
import { ServiceError } from '../http-errors.ts';
import type { RouteDeps, ServiceApp } from '../service-app.ts';
import { validationError } from '../validation-error.ts';
import {
  ListPageSchema,
  ListQuery,
  NamespaceQuery,
  RecordSchema,
  RecordVersionSchema,
  RememberBatchResultSchema,
  RememberBatchSchema,
  RememberInputSchema,
  RememberResultSchema,
  UpdateBodySchema,
  ForgottenSchema,
} from '../schemas.ts';
import { errors, json, namespaceOf, security, writeOptions } from './route-helpers.ts';

const IdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'TS20240315' }) });

/** remember (one or a batch), get, update, forget, list and history of memories. */
export function registerMemoryRoutes(app: ServiceApp, { memory, maxBatch }: RouteDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/memories',
      operationId: 'remember',
      summary: 'Remember one memory, or a batch ({ memories: [...] }, atomic unless skipInvalid)',
      security,
      request: { body: { required: true, ...json(z.union([RememberInputSchema, RememberBatchSchema])) } },
      responses: {
        201: { description: 'Stored (one memory)', ...json(RememberResultSchema) },
        200: { description: 'Already stored: deduplicated (one memory), or the batch result', ...json(z.union([RememberResultSchema, RememberBatchResultSchema])) },
        ...errors(409, 413, 507),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const access = c.get('access');
      if ('memories' in body) {
        if (body.memories.length > maxBatch) throw new ServiceError('PAYLOAD_TOO_LARGE', `A batch holds at most ${maxBatch} memories; split it.`, { limit: maxBatch });
        for (const item of body.memories) requireNamespace(access, item.namespace, 'write');
        const result = await memory.rememberMany(body.memories, { ...writeOptions(c), ...(body.skipInvalid === undefined ? {} : { skipInvalid: body.skipInvalid }) });
        return c.json(result, 200);
      }
      requireNamespace(access, body.namespace, 'write');
      const result = await memory.remember(body, writeOptions(c));
      return c.json(result, result.deduplicated ? 200 : 201);
    },
    // Typed as never: hono awaits an async hook, and this one only ever throws.
    (async (result: { success: boolean; error?: unknown }, c: { req: { json(): Promise<unknown> } }) => {
      if (result.success) return;
      // A union's errors are vague: validate against the shape that was meant for precise issues.
      const body: unknown = await c.req.json();
      const meant = typeof body === 'object' && body !== null && 'memories' in body ? RememberBatchSchema : RememberInputSchema;
      const precise = meant.safeParse(body);
      throw validationError(precise.success ? (result.error as ZodError) : precise.error, 'body');
    }) as never,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/memories/{id}',
      operationId: 'getMemory',
      summary: 'Get one memory',
      security,
      request: { params: IdParam, query: NamespaceQuery },
      responses: { 200: { description: 'The memory', ...json(RecordSchema) }, ...errors(404) },
    }),
    async (c) => {
      const namespace = namespaceOf(c.req.valid('query'));
      requireNamespace(c.get('access'), namespace, 'read');
      const { id } = c.req.valid('param');
      // Re-warming a cold record is a write: a read token's read leaves the record as it was.
      const record = await memory.get(namespace, id, { rewarm: recordsAccess(c.get('access'), [namespace], undefined) });
      if (!record) throw new ZeromemError('NOT_FOUND', `No memory "${id}" in this namespace (it may have been forgotten or expired).`);
      return c.json(record, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/v1/memories/{id}',
      operationId: 'updateMemory',
      summary: 'Update some fields of a memory (optimistic concurrency with ifVersion)',
      security,
      request: { params: IdParam, body: { required: true, ...json(UpdateBodySchema) } },
      responses: { 200: { description: 'The updated memory', ...json(RecordSchema) }, ...errors(404, 409) },
    }),
    async (c) => {
      const { namespace, patch, ifVersion } = c.req.valid('json');
      requireNamespace(c.get('access'), namespace, 'write');
      const record = await memory.update(namespace, c.req.valid('param').id, patch, { ...writeOptions(c), ...(ifVersion === undefined ? {} : { ifVersion }) });
      return c.json(record, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/memories/{id}',
      operationId: 'forgetMemory',
      summary: 'Forget one memory (its content, vector, index entries and history)',
      security,
      request: { params: IdParam, query: NamespaceQuery },
      responses: { 200: { description: 'Forgotten', ...json(ForgottenSchema) }, ...errors(404) },
    }),
    async (c) => {
      const namespace = namespaceOf(c.req.valid('query'));
      requireNamespace(c.get('access'), namespace, 'write');
      const { id } = c.req.valid('param');
      if (!(await memory.forget(namespace, id, writeOptions(c)))) throw new ZeromemError('NOT_FOUND', `No memory "${id}" in this namespace to forget.`);
      return c.json({ forgotten: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/memories',
      operationId: 'listMemories',
      summary: 'List memories, newest first by default; continue with nextCursor',
      security,
      request: { query: ListQuery },
      responses: { 200: { description: 'A page', ...json(ListPageSchema) } , ...errors() },
    }),
    async (c) => {
      const { userId, agentId, scope, tag, where, ...rest } = c.req.valid('query');
      const namespace = namespaceOf({ userId, agentId, scope });
      requireNamespace(c.get('access'), namespace, 'read');
      const options: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
      if (tag !== undefined) options.tags = { any: Array.isArray(tag) ? tag : [tag] };
      if (where !== undefined) options.where = parseJsonParam(where, 'where');
      return c.json(await memory.list(namespace, options), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/memories/{id}/history',
      operationId: 'getMemoryHistory',
      summary: "A memory's earlier versions, oldest first, with who replaced each and when",
      security,
      request: { params: IdParam, query: NamespaceQuery },
      responses: { 200: { description: 'Earlier versions', ...json(z.object({ versions: z.array(RecordVersionSchema) }).strict()) }, ...errors(404) },
    }),
    async (c) => {
      const namespace = namespaceOf(c.req.valid('query'));
      requireNamespace(c.get('access'), namespace, 'read');
      return c.json({ versions: await memory.history(namespace, c.req.valid('param').id) }, 200);
    },
  );
}

/** A query parameter holding JSON. */
export function parseJsonParam(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ServiceError('INVALID_INPUT', `The ${name} parameter must be JSON.`, { issues: [{ path: name, message: 'must be JSON' }] });
  }
}
