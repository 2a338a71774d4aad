import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Memory } from '@zeromem/core';
import type { Access } from './auth.ts';

/** What the route modules get. */
export interface RouteDeps {
  memory: Memory;
  maxBatch: number;
}

/** The Hono environment of the service: each request's access, set by the auth step. */
export type ServiceEnv = { Variables: { access: Access } };

/** The service's Hono app, on which `createApp` and the route modules register routes. */
export type ServiceApp = OpenAPIHono<ServiceEnv>;
