import type { Context } from 'hono';
import type { Namespace } from '@zeromem/core';
import { ErrorSchema } from '../schemas.ts';
import type { ServiceEnv } from '../service-app.ts';

/** The namespace named by `userId`, `agentId` and `scope` query parameters. */
export function namespaceOf(query: { userId: string; agentId?: string | undefined; scope?: string | undefined }): Namespace {
  return { userId: query.userId, ...(query.agentId === undefined ? {} : { agentId: query.agentId }), ...(query.scope === undefined ? {} : { scope: query.scope }) };
}

/**
 * Who acts, for the audit log: a namespace-limited token's subject; with the service
 * token, the `X-Zeromem-Actor` header if sent (core validates it), else the memory's actor.
 */
export function writeOptions(c: Context<ServiceEnv>): { actor?: string } {
  const access = c.get('access');
  if (!access.full) return { actor: access.subject };
  const actor = c.req.header('x-zeromem-actor');
  return actor === undefined ? {} : { actor };
}

/** JSON content of a response or request body. */
export function json<T>(schema: T) {
  return { content: { 'application/json': { schema } } };
}

const errorResponse = (description: string) => ({ description, ...json(ErrorSchema) });

/** The error responses every /v1 route can give, plus the ones it names. */
export function errors(...statuses: Array<404 | 409 | 413 | 507>) {
  const all: Record<number, ReturnType<typeof errorResponse>> = {
    400: errorResponse('INVALID_INPUT or NAMESPACE_REQUIRED: details.issues says what to fix'),
    401: errorResponse('UNAUTHORIZED: missing or refused bearer token'),
    403: errorResponse('FORBIDDEN: the token may not use this namespace'),
    503: errorResponse('STORAGE_FAILED, CLOSED or EMBEDDER_UNAVAILABLE'),
    500: errorResponse('INTERNAL'),
  };
  const named = { 404: 'NOT_FOUND', 409: 'CONFLICT', 413: 'PAYLOAD_TOO_LARGE: body or batch over the limit', 507: 'QUOTA_EXCEEDED: the namespace is full' } as const;
  for (const status of statuses) all[status] = errorResponse(named[status]);
  return all;
}

/** Every /v1 route needs the bearer token. */
export const security = [{ bearer: [] }];
