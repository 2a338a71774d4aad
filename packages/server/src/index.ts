/**
 * `@zeromem/server`: the zeromem memory service. Every verb of a memory over local HTTP
 * under `/v1`, bearer-token auth, an OpenAPI 3.1 document generated from the request
 * schemas at `/openapi.json`, and coded errors as `{ error: { code, message, details } }`.
 */
export { createApp, SERVICE_DEFAULTS, type ServiceOptions } from './app.ts';
export type { ServiceApp } from './service-app.ts';
export { startService, type RunningService, type StartOptions } from './serve.ts';
export { HTTP_STATUS, ServiceError, type ErrorBody, type ServiceErrorCode } from './http-errors.ts';
export type { Access, AuthOptions } from './auth.ts';
export { runService, SERVE_USAGE } from './cli.ts';
