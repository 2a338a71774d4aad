import { OpenAPIHono } from '@hono/zod-openapi';
import type { Memory } from '@zeromem/core';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { authenticate, type AuthOptions } from './auth.ts';
import { ServiceError, errorResponse } from './http-errors.ts';
import { registerAdminRoutes } from './routes/admin.ts';
import { registerMemoryRoutes } from './routes/memories.ts';
import { registerProfileRoutes } from './routes/profile.ts';
import { registerRecallRoutes } from './routes/recall.ts';
import { registerTransferRoutes } from './routes/transfer.ts';
import type { RouteDeps, ServiceApp, ServiceEnv } from './service-app.ts';
import { validationError } from './validation-error.ts';

/** Limits and switches of the HTTP service. */
export interface ServiceOptions extends AuthOptions {
  /** Largest JSON request body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Largest JSONL import body, in bytes. Default 64 MiB. */
  maxImportBytes?: number;
  /** Most memories in one batch write. Default 1000. */
  maxBatch?: number;
  /** Origins allowed to call from a browser (CORS). Default: none, CORS off. */
  corsOrigins?: string[];
}

/** Defaults of {@link ServiceOptions}. */
export const SERVICE_DEFAULTS = { maxBodyBytes: 1024 * 1024, maxImportBytes: 64 * 1024 * 1024, maxBatch: 1000 } as const;

/**
 * The service as a Hono app (`app.fetch` is a standard fetch handler): every route under
 * `/v1` checks the bearer token before reading the body, then validates with the zod
 * schemas that `/openapi.json` is generated from, then calls the memory's verb.
 */
export function createApp(memory: Memory, options: ServiceOptions): ServiceApp {
  const maxBodyBytes = options.maxBodyBytes ?? SERVICE_DEFAULTS.maxBodyBytes;
  const maxImportBytes = options.maxImportBytes ?? SERVICE_DEFAULTS.maxImportBytes;
  const app: ServiceApp = new OpenAPIHono<ServiceEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
  if (options.corsOrigins?.length) app.use('*', cors({ origin: options.corsOrigins, allowHeaders: ['Authorization', 'Content-Type', 'X-Zeromem-Actor'], allowMethods: ['GET', 'POST', 'PATCH', 'DELETE'] }));
  // Authentication first: a request without a valid token costs no parsing and no storage.
  app.use('/v1/*', async (c, next) => {
    c.set('access', await authenticate(c.req.header('authorization'), options));
    await next();
  });
  const tooLarge = (limit: number) => () => {
    throw new ServiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes.`, { limit });
  };
  app.use('/v1/import', bodyLimit({ maxSize: maxImportBytes, onError: tooLarge(maxImportBytes) }));
  app.use('/v1/*', async (c, next) => {
    if (c.req.path === '/v1/import') return next();
    return bodyLimit({ maxSize: maxBodyBytes, onError: tooLarge(maxBodyBytes) })(c, next);
  });
  app.use('/v1/*', async (c, next) => {
    const method = c.req.method;
    if ((method === 'POST' || method === 'PATCH') && c.req.path !== '/v1/import' && !/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
      throw new ServiceError('INVALID_INPUT', 'Send the body as JSON with "Content-Type: application/json".', { issues: [{ path: '', message: 'must be a JSON body' }] });
    }
    await next();
  });

  const deps: RouteDeps = { memory, maxBatch: options.maxBatch ?? SERVICE_DEFAULTS.maxBatch };
  registerMemoryRoutes(app, deps);
  registerRecallRoutes(app, deps);
  registerProfileRoutes(app, deps);
  registerAdminRoutes(app, deps);
  registerTransferRoutes(app, deps);

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  // `servers` is the address the document was fetched from: a client generated from it
  // calls the service that served it.
  app.doc31('/openapi.json', (c) => ({
    openapi: '3.1.0',
    info: {
      title: 'zeromem memory service',
      version: '0.1.0',
      description: 'Local memory for agents: every zeromem verb over HTTP. Errors are { error: { code, message, details } }.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: new URL(c.req.url).origin, description: 'This memory service' }],
    security: [{ bearer: [] }],
  }));

  app.notFound(() => {
    throw new ServiceError('NOT_FOUND', 'No such route. GET /openapi.json lists every route.');
  });
  app.onError((err, c) => {
    const mapped = err instanceof HTTPException ? httpException(err) : err;
    const { status, body } = errorResponse(mapped);
    if (status >= 500) console.error(err);
    // A body refused halfway is not read to its end: the connection cannot carry another request.
    if (status === 413) c.header('Connection', 'close');
    return c.json(body, status as 400);
  });
  return app;
}

/** Hono's own refusals (malformed JSON, a body that could not be read) in the service's error format. */
function httpException(err: HTTPException): ServiceError {
  if (err.status === 400) return new ServiceError('INVALID_INPUT', `The request body is not valid JSON: ${err.message}`, { issues: [{ path: '', message: 'must be valid JSON' }] });
  if (err.status === 413) return new ServiceError('PAYLOAD_TOO_LARGE', err.message);
  return new ServiceError('INTERNAL', err.message);
}
