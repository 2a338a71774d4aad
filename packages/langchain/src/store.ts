import { ZeromemError, isZeromemError, type JsonObject, type Memory, type MemoryRecord, type Namespace, type RecordFilter } from '@zeromem/core';
import {
  BaseStore,
  validateNamespace,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import { MAX_DEPTH, ROOT_TAG, itemId, itemTags, prefixTag } from './store-keys.ts';
import { VALUE_KEY, storeFilterWhere } from './store-filter.ts';

/** Options of {@link ZeromemStore}. */
export interface ZeromemStoreInput {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
  /**
   * The zeromem namespace that holds the whole store (every LangGraph namespace tuple
   * lives inside it). Give the store one of its own, e.g. `{ userId, scope: 'langgraph' }`:
   * its items are memories of that namespace (JSON text), found by recall like any.
   */
  namespace: Namespace;
}

/** What a record holds: the item itself, as JSON (unique per namespace and key, so never a duplicate of another). */
interface StoredItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
}

/**
 * A LangGraph `BaseStore` over zeromem: `put/get/search/delete/listNamespaces` with
 * namespace tuples, inside one zeromem namespace you bind. Durable wherever the memory is,
 * `search({ query })` ranks with zeromem's recall (BM25, and vectors with an embedder) and
 * reports its score; `filter` follows LangGraph's operators. A batch answers its reads
 * from the state before it and then applies its writes in order, as InMemoryStore does.
 * An item's JSON is at most the memory's `maxContentBytes` (32 KiB by default), its value
 * at most `maxMetadataBytes` (8 KiB): the value is also kept as metadata for the filters.
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 * import { ZeromemStore } from '@zeromem/langchain';
 *
 * const memory = await openMemory({ name: 'my-agent' });
 * const store = new ZeromemStore({ memory, namespace: { userId: 'alice', scope: 'langgraph' } });
 * await store.put(['memories', 'alice'], 'food', { text: 'likes ramen' });
 * console.log((await store.get(['memories', 'alice'], 'food'))?.value); // { text: 'likes ramen' }
 * await memory.close();
 */
export class ZeromemStore extends BaseStore {
  readonly memory: Memory;
  readonly namespace: Readonly<Namespace>;

  constructor(fields: ZeromemStoreInput) {
    super();
    if (typeof fields?.memory?.recall !== 'function') throw new ZeromemError('INVALID_INPUT', 'ZeromemStore needs { memory, namespace }: memory is what openMemory() returned.');
    if (typeof fields.namespace !== 'object' || fields.namespace === null) throw new ZeromemError('NAMESPACE_REQUIRED', 'ZeromemStore needs { namespace: { userId, agentId?, scope? } }.');
    this.memory = fields.memory;
    this.namespace = Object.freeze({ ...fields.namespace });
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const puts = new Map<string, PutOperation>();
    for (const op of operations) {
      if ('value' in op) {
        checkNamespace(op.namespace);
        puts.set(await itemId(op.namespace, op.key), op); // the last put of an item wins
      }
    }
    const results: unknown[] = [];
    for (const op of operations) {
      if ('value' in op) results.push(undefined);
      else if ('namespacePrefix' in op) results.push(await this.#search(op));
      else if ('matchConditions' in op) results.push(await this.#listNamespaces(op));
      else results.push(await this.#get(op as GetOperation));
    }
    for (const [id, op] of puts) await this.#put(id, op);
    return results as OperationResults<Op>;
  }

  async #get(op: GetOperation): Promise<Item | null> {
    const record = await this.memory.get(this.namespace, await itemId(op.namespace, op.key), { rewarm: false });
    return record ? toItem(record) : null;
  }

  async #put(id: string, op: PutOperation): Promise<void> {
    if (op.value === null) {
      await this.memory.forget(this.namespace, id);
      return;
    }
    const stored: StoredItem = { namespace: op.namespace, key: op.key, value: op.value };
    const content = JSON.stringify(stored);
    const metadata = { [VALUE_KEY]: op.value } as JsonObject; // what LangGraph's filters read, as core's `where`
    const existing = await this.memory.get(this.namespace, id, { rewarm: false });
    if (existing) {
      if (existing.content !== content) await this.memory.update(this.namespace, id, { content, metadata });
      return;
    }
    try {
      await this.memory.remember({ namespace: this.namespace, id, content, metadata, tags: await itemTags(op.namespace), source: 'tool' });
    } catch (err) {
      // Another put of the same item won the race to create it: this one is the later write.
      if (!(isZeromemError(err) && err.code === 'CONFLICT')) throw err;
      await this.memory.update(this.namespace, id, { content, metadata });
    }
  }

  async #search(op: SearchOperation): Promise<SearchItem[]> {
    const offset = op.offset ?? 0;
    const limit = op.limit ?? 10;
    const filters = { tags: { all: [await prefixTag(op.namespacePrefix)] }, ...(op.filter ? { where: storeFilterWhere(op.filter) } : {}) };
    if (op.query) {
      const { hits } = await this.memory.recall(this.namespace, op.query, { k: Math.min(1000, offset + limit), filters });
      return hits.map((hit) => ({ ...toItem(hit.record), score: hit.score })).slice(offset, offset + limit);
    }
    return (await this.#all(filters)).map(toItem).slice(offset, offset + limit);
  }

  async #listNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    const seen = new Map<string, string[]>();
    for (const record of await this.#all({ tags: { all: [ROOT_TAG] } })) {
      const { namespace } = parse(record);
      if (!(op.matchConditions ?? []).every((condition) => matches(condition, namespace))) continue;
      const shown = op.maxDepth === undefined ? namespace : namespace.slice(0, op.maxDepth);
      seen.set(JSON.stringify(shown), shown);
    }
    const namespaces = [...seen.values()].sort((a, b) => a.join(':').localeCompare(b.join(':')));
    return namespaces.slice(op.offset, op.offset + op.limit);
  }

  /** Every item record that matches `filters`, oldest first. */
  async #all(filters: RecordFilter): Promise<MemoryRecord[]> {
    const records: MemoryRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.memory.list(this.namespace, { ...filters, orderBy: 'createdAt', order: 'asc', limit: 1000, ...(cursor ? { cursor } : {}) });
      records.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return records;
  }
}

function checkNamespace(namespace: string[]): void {
  validateNamespace(namespace);
  if (namespace.length > MAX_DEPTH) {
    throw new ZeromemError('INVALID_INPUT', `A ZeromemStore namespace has at most ${MAX_DEPTH} labels, got ${namespace.length}.`, { issues: [{ path: 'namespace', message: `must have at most ${MAX_DEPTH} labels` }] });
  }
}

function parse(record: MemoryRecord): StoredItem {
  return JSON.parse(record.content) as StoredItem;
}

function toItem(record: MemoryRecord): Item {
  const { namespace, key, value } = parse(record);
  return { namespace, key, value, createdAt: new Date(record.createdAt), updatedAt: new Date(record.updatedAt) };
}

function matches({ matchType, path }: MatchCondition, namespace: string[]): boolean {
  if (path.length > namespace.length) return false;
  const start = matchType === 'prefix' ? 0 : namespace.length - path.length;
  return path.every((label, i) => label === '*' || label === namespace[start + i]);
}
