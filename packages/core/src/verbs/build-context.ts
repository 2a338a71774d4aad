import { buildContext as assemble } from '../context/assemble.ts';
import { maskingSource } from '../context/mask-context.ts';
import type { BuiltContext } from '../public/context.ts';
import type { ContextSource } from '../context/source.ts';
import { namespaceKey } from '../model/namespace.ts';
import { countAccess } from './count-access.ts';
import { list } from './list.ts';
import type { MemoryContext } from './memory-context.ts';
import { profile } from './profile.ts';
import { recall } from './recall.ts';

/**
 * The context to send to an LLM (context/assemble.ts), read through the memory's own
 * verbs: `recall` (redacted query, counted hits re-warmed), `list`, `profile`, the access
 * count of what it keeps and the full-history counts. With redaction that masks only in
 * contexts, everything it reads is masked first.
 */
export async function buildContext(ctx: MemoryContext, options: unknown): Promise<BuiltContext> {
  const tokenizer = await ctx.tokenizer();
  const source: ContextSource = {
    recall: (namespace, query, recallOptions) => recall(ctx, namespace, query, recallOptions),
    list: (namespace, listOptions) => list(ctx, namespace, listOptions),
    profile: (namespace, profileOptions) => profile(ctx, namespace, profileOptions),
    countAccess: (namespace, ids) => countAccess(ctx, namespace, ids),
    history: (namespace) => ctx.history.read(namespaceKey(namespace), tokenizer),
  };
  const redactor = ctx.redactor;
  return assemble(redactor?.masksContexts ? maskingSource(source, redactor) : source, tokenizer, options, ctx.limits);
}
