import type { Namespace } from '@zeromem/core';
import { invalidArgument } from './job-error.ts';

/** `--user`, `--agent`, `--scope` as a namespace; `undefined` without `--user` (an error when `required`). */
export function namespaceArgs(values: { user?: string | undefined; agent?: string | undefined; scope?: string | undefined }, required: true): Namespace;
export function namespaceArgs(values: { user?: string | undefined; agent?: string | undefined; scope?: string | undefined }, required?: boolean): Namespace | undefined;
export function namespaceArgs(values: { user?: string | undefined; agent?: string | undefined; scope?: string | undefined }, required = false): Namespace | undefined {
  if (values.user === undefined) {
    if (values.agent !== undefined || values.scope !== undefined) throw invalidArgument('--agent and --scope need --user');
    if (required) throw invalidArgument('--user <id> is required');
    return undefined;
  }
  return { userId: values.user, ...(values.agent !== undefined ? { agentId: values.agent } : {}), ...(values.scope !== undefined ? { scope: values.scope } : {}) };
}
