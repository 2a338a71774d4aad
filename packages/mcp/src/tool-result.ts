import { isZeromemError } from '@zeromem/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A successful result: the structured content, and the same as JSON text for clients that only read text. */
export function structured<T extends Record<string, unknown>>(value: T): CallToolResult & { structuredContent: T } {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/**
 * Runs a tool body; a ZeromemError (bad input, not found, conflict) becomes an MCP tool
 * error naming its code and every field to fix, so the model can correct the call.
 * Core validates before it writes, so such a call has written nothing.
 */
export async function toolCall<T extends Record<string, unknown>>(body: () => Promise<T>): Promise<CallToolResult> {
  try {
    return structured(await body());
  } catch (err) {
    if (!isZeromemError(err)) throw err;
    const issues = (err.details.issues ?? []).map((issue) => `\n- ${issue.path || '(input)'}: ${issue.message}`).join('');
    return { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}${issues}` }] };
  }
}
