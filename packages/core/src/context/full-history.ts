import { cachedCount } from './count-cache.ts';
import type { PreparedContext } from './options.ts';
import { SECTION_HEADERS, itemLine, turnRole } from './render.ts';
import type { ContextSource } from './source.ts';
import type { Tokenizer } from './tokenizer.ts';

/**
 * Tokens of the full history a context replaces: the system instructions and every live
 * memory of each enabled layer's namespace (for the session layer: every turn, of
 * `sessionId` when given), each rendered whole, as the context renders it, with its
 * section header. Counted line by line (each line with its newline, a cached count),
 * so the same memory is tokenized once per process.
 */
export async function fullHistoryTokens(source: ContextSource, tokenizer: Tokenizer, opts: PreparedContext): Promise<number> {
  let total = opts.system.length ? cachedCount(tokenizer, `${opts.system.join('\n')}\n`) + 1 : 0;
  for (const layer of opts.layers) {
    let lines = 0;
    let any = false;
    let cursor: string | undefined;
    do {
      const page = await source.list(layer.namespace, {
        layer: layer.layer,
        limit: 1000,
        ...(layer.layer === 'session' && opts.sessionId !== undefined ? { metadata: { session: opts.sessionId } } : {}),
        ...(cursor ? { cursor } : {}),
      });
      for (const record of page.items) {
        any = true;
        lines += cachedCount(tokenizer, `${itemLine(layer.layer, { content: record.content, role: turnRole(record.source) })}\n`);
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    if (any) total += cachedCount(tokenizer, `${SECTION_HEADERS[layer.layer]}\n`) + lines + 1;
  }
  return total;
}
