import { createHash } from 'node:crypto';
import type { Namespace, RememberInput } from '@zeromem/core';
import { canonicalJson } from '@zeromem/core/internal';

/**
 * The memory to store for an input item: its namespace is `namespace`, or the flat
 * `userId`/`agentId`/`scope` fields, or else the `--user/--agent/--scope` default; it
 * keeps its own `id`, or gets one derived from the item itself ({@link derivedId}), so
 * storing it again (a rerun after an interruption) finds the same record instead of
 * adding a copy. Anything else is passed to core as it is, which validates it.
 */
export function toRememberInput(item: Record<string, unknown>, fallback: Namespace | undefined): RememberInput {
  const { userId, agentId, scope, ...rest } = item;
  const flat = userId !== undefined || agentId !== undefined || scope !== undefined;
  const input: Record<string, unknown> = { ...rest };
  if (input.namespace === undefined) {
    if (flat) input.namespace = { userId, ...(agentId !== undefined ? { agentId } : {}), ...(scope !== undefined ? { scope } : {}) };
    else if (fallback) input.namespace = fallback;
  } else if (flat) {
    // Both: let core's validation name the stray fields rather than guess which one is meant.
    Object.assign(input, { userId, agentId, scope });
  }
  if (input.id === undefined) input.id = derivedId(input);
  return input as unknown as RememberInput;
}

/**
 * `i:` and 32 hex digits of the SHA-256 of the item's canonical JSON (keys sorted): the
 * same item gets the same id in every run, different items different ids.
 */
export function derivedId(item: Record<string, unknown>): string {
  return `i:${createHash('sha256').update(canonicalJson(item)).digest('hex').slice(0, 32)}`;
}
