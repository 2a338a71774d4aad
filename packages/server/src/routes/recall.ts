import { createRoute } from '@hono/zod-openapi';
import type { BuildContextOptions, Memory, Namespace } from '@zeromem/core';

type RecallOptions = Parameters<Memory['recall']>[2];
import { recordsAccess, requireNamespace } from '../auth.ts';
import type { RouteDeps, ServiceApp } from '../service-app.ts';
import { BuiltContextSchema, ContextBodySchema, RecallBodySchema, RecallResultSchema } from '../schemas.ts';
import { errors, json, security } from './route-helpers.ts';

/** recall and buildContext. */
export function registerRecallRoutes(app: ServiceApp, { memory }: RouteDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/recall',
      operationId: 'recall',
      summary: 'Recall the memories that answer a query (hybrid, ranked, each hit with explain)',
      security,
      request: { body: { required: true, ...json(RecallBodySchema) } },
      responses: { 200: { description: 'Hits, best first', ...json(RecallResultSchema) }, ...errors() },
    }),
    async (c) => {
      const { namespace, query, ...options } = c.req.valid('json');
      requireNamespace(c.get('access'), namespace, 'read');
      const trackAccess = recordsAccess(c.get('access'), namespace ? [namespace] : [], options.trackAccess);
      const { vectorError, ...result } = await memory.recall(namespace, query, { ...options, trackAccess } as RecallOptions);
      // The error as its code and message: its details may hold the embedder's own error object.
      return c.json({ ...result, ...(vectorError ? { vectorError: { code: vectorError.code, message: vectorError.message } } : {}) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/context',
      operationId: 'buildContext',
      summary: 'Build a context for an LLM: text, chat messages and the token report',
      security,
      request: { body: { required: true, ...json(ContextBodySchema) } },
      responses: { 200: { description: 'The context', ...json(BuiltContextSchema) }, ...errors() },
    }),
    async (c) => {
      const options = c.req.valid('json') as BuildContextOptions;
      const access = c.get('access');
      requireNamespace(access, options.namespace, 'read');
      const read: Namespace[] = options.namespace ? [options.namespace] : [];
      // A layer may read another namespace: the token must allow that one too.
      for (const quota of Object.values(options.layers ?? {})) {
        const other = (quota as { namespace?: Namespace } | false | undefined) || undefined;
        if (other?.namespace) {
          requireNamespace(access, other.namespace, 'read');
          read.push(other.namespace);
        }
      }
      return c.json(await memory.buildContext({ ...options, trackAccess: recordsAccess(access, read, options.trackAccess) }), 200);
    },
  );
}
