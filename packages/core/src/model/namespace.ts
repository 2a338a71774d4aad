import { invalidInput } from './errors.ts';
import { ZeromemError } from '../public/errors.ts';
import { IssueList, checkKnownKeys, checkName, isPlainObject } from './checks.ts';
import type { Namespace } from '../public/memory-record.ts';

const NAMESPACE_FIELDS = ['userId', 'agentId', 'scope'] as const;

/** A validated namespace and the stable key it resolves to. */
export interface ResolvedNamespace {
  namespace: Namespace;
  key: string;
}

/**
 * The stable key of a namespace: `u=<userId>[;a=<agentId>][;s=<scope>]`, each part
 * URI-encoded so no two namespaces share a key.
 */
export function namespaceKey(namespace: Namespace): string {
  let key = `u=${encodeURIComponent(namespace.userId)}`;
  if (namespace.agentId !== undefined) key += `;a=${encodeURIComponent(namespace.agentId)}`;
  if (namespace.scope !== undefined) key += `;s=${encodeURIComponent(namespace.scope)}`;
  return key;
}

/**
 * Reads a namespace key back, the inverse of {@link namespaceKey} (a relay room's name, as
 * `zeromem serve --share` and `zeromem-relay token --room` take it); `undefined` when it is
 * not one, and for any spelling but the canonical one (the room name must match exactly).
 */
export function parseNamespaceKey(key: string): Namespace | undefined {
  const match = /^u=([^;]+)(?:;a=([^;]+))?(?:;s=([^;]+))?$/.exec(key);
  if (!match) return undefined;
  let namespace: Namespace;
  try {
    const [userId, agentId, scope] = match.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part)));
    namespace = { userId: userId!, ...(agentId === undefined ? {} : { agentId }), ...(scope === undefined ? {} : { scope }) };
  } catch {
    return undefined; // a malformed %-escape
  }
  return namespaceKey(namespace) === key ? namespace : undefined;
}

/**
 * Validates a namespace into `issues` (under `path`). Returns `undefined` when it is
 * missing (the caller raises NAMESPACE_REQUIRED) or invalid (issues were added).
 */
export function checkNamespace(value: unknown, path: string, maxNameLength: number, issues: IssueList): ResolvedNamespace | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    issues.add(path, 'must be an object like { userId, agentId?, scope? }');
    return undefined;
  }
  const before = issues.items.length;
  checkKnownKeys(value, NAMESPACE_FIELDS, path, issues);
  if (value.userId === undefined) {
    issues.add(`${path ? `${path}.` : ''}userId`, 'is required: every namespace belongs to a user');
    return undefined;
  }
  const userId = checkName(value.userId, `${path ? `${path}.` : ''}userId`, maxNameLength, issues);
  const namespace: Namespace = { userId: userId ?? '' };
  for (const field of ['agentId', 'scope'] as const) {
    if (value[field] === undefined) continue;
    const name = checkName(value[field], `${path ? `${path}.` : ''}${field}`, maxNameLength, issues);
    if (name !== undefined) namespace[field] = name;
  }
  if (issues.items.length > before) return undefined;
  return { namespace, key: namespaceKey(namespace) };
}

/** Validates the namespace argument of a verb; throws NAMESPACE_REQUIRED or INVALID_INPUT. */
export function requireNamespace(value: unknown, maxNameLength: number): ResolvedNamespace {
  if (value === undefined || value === null) {
    throw new ZeromemError(
      'NAMESPACE_REQUIRED',
      'A namespace is required: pass { userId } (and agentId or scope for a narrower one). There is no global search.',
    );
  }
  const issues = new IssueList();
  const resolved = checkNamespace(value, 'namespace', maxNameLength, issues);
  if (!resolved) {
    if (isPlainObject(value) && value.userId === undefined && Object.keys(value).every((key) => key === 'agentId' || key === 'scope')) {
      throw new ZeromemError('NAMESPACE_REQUIRED', 'namespace.userId is required: every namespace belongs to a user.', {
        issues: issues.items,
      });
    }
    throw invalidInput('namespace', issues.items);
  }
  return resolved;
}
