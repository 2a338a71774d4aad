import { isZeromemError } from '@zeromem/core';

/**
 * A ZeromemError (bad input, not found, conflict) as the text a model reads to correct its
 * call: the code, the message and every field to fix. Core validates before it writes, so
 * such a call has written nothing. Other errors give `undefined`: they are not the model's.
 */
export function describeToolError(err: unknown): string | undefined {
  if (!isZeromemError(err)) return undefined;
  const issues = (err.details.issues ?? []).map((issue) => `\n- ${issue.path || '(input)'}: ${issue.message}`).join('');
  return `${err.code}: ${err.message}${issues}`;
}
