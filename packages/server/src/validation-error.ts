import type { ZodError } from 'zod';
import { ServiceError } from './http-errors.ts';

/** A zod refusal as INVALID_INPUT (or NAMESPACE_REQUIRED when the namespace is missing), with core's issue format. */
export function validationError(error: ZodError, target: string): ServiceError {
  const issues = error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  const missingNamespace = error.issues.some(
    (issue) => issue.code === 'invalid_type' && /received undefined/.test(issue.message) && (target === 'query' ? issue.path[0] === 'userId' : issue.path.length === 1 && issue.path[0] === 'namespace'),
  );
  if (missingNamespace) return new ServiceError('NAMESPACE_REQUIRED', 'A namespace is required: pass { userId } (and agentId or scope for a narrower one).', { issues });
  const first = issues[0];
  return new ServiceError('INVALID_INPUT', `Invalid request ${target}: ${first?.path ? `${first.path}: ` : ''}${first?.message ?? 'invalid'}`, { issues });
}
