import { namespaceKey } from '../model/namespace.ts';
import { cachedCount } from './count-cache.ts';
import type { PreparedContext } from './options.ts';
import { SECTION_HEADERS } from './render.ts';
import type { ContextSource } from './source.ts';
import type { Tokenizer } from '../public/tokenizer.ts';

/**
 * Tokens of the full history a context replaces: the system instructions and every live
 * memory of each enabled layer's namespace (for the session layer: every turn, of
 * `sessionId` when given), each rendered whole, as the context renders it, with its
 * section header. The memories' lines come from the source's history tallies, which are
 * kept up to date per namespace instead of recounted (context/history-counts.ts).
 */
export async function fullHistoryTokens(source: ContextSource, tokenizer: Tokenizer, opts: PreparedContext): Promise<number> {
  let total = opts.system.length ? cachedCount(tokenizer, `${opts.system.join('\n')}\n`) + 1 : 0;
  const byNamespace = new Map<string, ReturnType<ContextSource['history']>>();
  for (const layer of opts.layers) {
    // The profile's facts are memories of another layer, counted there.
    if (layer.layer === 'profile') continue;
    const key = namespaceKey(layer.namespace);
    if (!byNamespace.has(key)) byNamespace.set(key, source.history(layer.namespace));
    const tally = (await byNamespace.get(key)!)(layer.layer, layer.layer === 'session' ? opts.sessionId : undefined);
    if (tally.items) total += cachedCount(tokenizer, `${SECTION_HEADERS[layer.layer]}\n`) + tally.tokens + 1;
  }
  return total;
}
