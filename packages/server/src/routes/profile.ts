import { createRoute } from '@hono/zod-openapi';
import { requireNamespace } from '../auth.ts';
import type { RouteDeps, ServiceApp } from '../service-app.ts';
import { ProfileQuery, ProfileSchema } from '../schemas.ts';
import { errors, json, namespaceOf, security } from './route-helpers.ts';

/** The profile: a namespace's current keyed facts. */
export function registerProfileRoutes(app: ServiceApp, { memory }: RouteDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/profile',
      operationId: 'getProfile',
      summary: "The namespace's current keyed facts, one per key, sorted by key (asOf: as they were then)",
      security,
      request: { query: ProfileQuery },
      responses: { 200: { description: 'The profile', ...json(ProfileSchema) }, ...errors() },
    }),
    async (c) => {
      const { asOf, ...query } = c.req.valid('query');
      const namespace = namespaceOf(query);
      requireNamespace(c.get('access'), namespace, 'read');
      return c.json({ profile: await memory.profile(namespace, asOf === undefined ? {} : { asOf }) }, 200);
    },
  );
}
