import { ZeromemError, type ErrorCode, type InputIssue } from '../public/errors.ts';

/** True when `err` is a {@link ZeromemError}, optionally with the given code. */
export function isZeromemError(err: unknown, code?: ErrorCode): err is ZeromemError {
  return err instanceof ZeromemError && (code === undefined || err.code === code);
}

/** Builds the INVALID_INPUT error for a single input from its issues. */
export function invalidInput(what: string, issues: InputIssue[]): ZeromemError {
  const first = issues[0];
  const where = first && first.path ? `${first.path}: ` : '';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return new ZeromemError('INVALID_INPUT', `Invalid ${what}: ${where}${first?.message ?? 'invalid'}${more}`, { issues });
}
