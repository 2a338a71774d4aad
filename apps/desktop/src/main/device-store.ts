/**
 * The device store in the Electron main process: the one zeromem store of this machine
 * (`<$ZEROMEM_HOME or ~/.zeromem>/zeromem.sqlite`, the default of `zeromem-mcp` and the
 * CLI), opened with core's Node entry, and the memory verbs the renderer may call on it.
 * Each verb is one IPC channel with a zod schema for its arguments; core validates the
 * values again. What Claude Desktop's MCP server remembers is what the app's inspector and
 * agents read, and the other way round. The web twin keeps its memory in IndexedDB.
 */
import { join } from 'node:path';
import {
  defaultDirectory,
  openMemory,
  type AuditOptions,
  type ConsolidateOptions,
  type ListOptions,
  type Memory,
  type Namespace,
  type ProfileOptions,
  type RecallOptions,
  type RememberInput,
  type Session,
  type SessionOptions,
  type UpdatePatch,
  type WriteOptions,
} from '@zeromem/core';
import { z } from 'zod';
import type { DeviceStoreInfo, MemoryVerb } from '../shared/ipc-contract.ts';

/** The store's name: `zeromem-mcp`'s and the CLI's default `--db`. */
export const DEVICE_STORE_NAME = 'zeromem';


const name = z.string().min(1).max(256);
const namespaceSchema = z.strictObject({ userId: name, agentId: name.optional(), scope: name.optional() });
const idSchema = name;
const actorSchema = z.strictObject({ actor: z.string().min(1).max(64) }).optional();
const tagsSchema = z.array(z.string().max(256)).max(64);
const jsonObject = z.record(z.string(), z.unknown());
const timeRange = z.strictObject({ from: z.number().optional(), to: z.number().optional() });
const factKey = z.string().min(1).max(128);
const filterSchema = z.strictObject({
  tags: z.strictObject({ any: tagsSchema.optional(), all: tagsSchema.optional() }).optional(),
  layer: z.enum(['session', 'long_term', 'knowledge']).optional(),
  createdAt: timeRange.optional(),
  key: factKey.optional(),
});
/** Which keyed facts a read returns: valid now (default), at `asOf`, or every version. */
const validity = { asOf: z.number().optional(), includeClosed: z.boolean().optional() };
const listOptions = filterSchema.extend({ limit: z.number().int().min(1).max(1000).optional(), cursor: z.string().max(4096).optional(), order: z.enum(['asc', 'desc']).optional(), ...validity });
const rememberInput = z.strictObject({
  namespace: namespaceSchema,
  id: idSchema.optional(),
  content: z.string().max(1_000_000),
  tags: tagsSchema.optional(),
  metadata: jsonObject.optional(),
  importance: z.number().optional(),
  layer: z.enum(['session', 'long_term', 'knowledge']).optional(),
  source: z.enum(['user', 'assistant', 'system', 'tool']).optional(),
  createdAt: z.number().optional(),
  ttl: z.string().max(32).optional(),
  key: factKey.optional(),
  validFrom: z.number().optional(),
  validUntil: z.number().optional(),
});
const patchSchema = z.strictObject({
  content: z.string().max(1_000_000).optional(),
  tags: tagsSchema.optional(),
  importance: z.number().optional(),
  metadata: jsonObject.optional(),
  ttl: z.string().max(32).optional(),
  expiresAt: z.number().nullable().optional(),
});
const recallOptions = z.strictObject({
  k: z.number().int().min(1).max(100).optional(),
  filters: filterSchema.optional(),
  layers: z.array(z.enum(['session', 'long_term', 'knowledge'])).optional(),
  includeCold: z.boolean().optional(),
  trackAccess: z.boolean().optional(),
  ...validity,
});
const layerQuota = z.strictObject({ namespace: namespaceSchema.optional(), maxItems: z.number().int().min(0).max(1000).optional() });
/** A conversation as the renderer's agents open it (`memory.session()`); no LLM hook crosses IPC. */
const sessionSchema = z.strictObject({
  namespace: namespaceSchema,
  id: idSchema,
  ttl: z.string().max(32).optional(),
  context: z
    .strictObject({
      budget: z.number().int().min(1).max(1_000_000).optional(),
      system: z.string().max(100_000).optional(),
      layers: z.strictObject({ profile: layerQuota.optional(), session: layerQuota.optional(), long_term: layerQuota.optional(), knowledge: layerQuota.optional() }).optional(),
    })
    .optional(),
});
const roleSchema = z.enum(['user', 'assistant', 'system', 'tool']);

/** One verb: the schema of its argument list and what it does on the store with them. */
export interface Verb<S extends z.ZodTuple = z.ZodTuple> {
  args: S;
  run(store: DeviceStore, args: z.output<S>): Promise<unknown>;
}

const verb = <S extends z.ZodTuple>(args: S, run: (store: DeviceStore, args: z.output<S>) => Promise<unknown>): Verb<S> => ({ args, run });

// The schemas above check shape and size; core checks the values again and owns their meaning,
// so the parsed values are handed on as core's own types.
const ns = (value: unknown) => value as Namespace;
const opts = <T>(value: unknown) => value as T | undefined;

/**
 * The memory verbs the renderer may call, by name. Nothing else of the store is reachable:
 * no forgetUser, no sweep, no options that open another file.
 */
export const DEVICE_STORE_VERBS = {
  info: verb(z.tuple([]), async (store) => store.info),
  listNamespaces: verb(z.tuple([]), (store) => store.memory.listNamespaces()),
  list: verb(z.tuple([namespaceSchema, listOptions.optional()]), (store, [n, o]) => store.memory.list(ns(n), opts<ListOptions>(o))),
  profile: verb(z.tuple([namespaceSchema, z.strictObject({ asOf: z.number().optional() }).optional()]), (store, [n, o]) => store.memory.profile(ns(n), opts<ProfileOptions>(o))),
  get: verb(z.tuple([namespaceSchema, idSchema]), async (store, [n, id]) => (await store.memory.get(ns(n), id, { rewarm: false })) ?? null),
  recall: verb(z.tuple([namespaceSchema, z.string().max(32_768), recallOptions.optional()]), (store, [n, query, o]) => store.memory.recall(ns(n), query, opts<RecallOptions>(o))),
  remember: verb(z.tuple([rememberInput, actorSchema]), (store, [input, o]) => store.memory.remember(input as RememberInput, opts<WriteOptions>(o))),
  update: verb(z.tuple([namespaceSchema, idSchema, patchSchema, actorSchema]), (store, [n, id, patch, o]) => store.memory.update(ns(n), id, patch as UpdatePatch, opts<WriteOptions>(o))),
  forget: verb(z.tuple([namespaceSchema, idSchema, actorSchema]), (store, [n, id, o]) => store.memory.forget(ns(n), id, opts<WriteOptions>(o))),
  // `after` pages the log: the inspector's file list (Claude's memory tool) reads only the entries after the last it saw.
  audit: verb(z.tuple([namespaceSchema, z.strictObject({ after: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(10_000).optional() }).optional()]), (store, [n, o]) => store.memory.audit(ns(n), opts<AuditOptions>(o))),
  exportJsonl: verb(z.tuple([z.strictObject({ namespace: namespaceSchema })]), (store, [scope]) => store.memory.exportJsonl({ namespace: ns(scope.namespace) })),
  importJsonl: verb(z.tuple([z.string().max(256 * 1024 * 1024), actorSchema]), (store, [text, o]) => store.memory.importJsonl(text, opts<WriteOptions>(o))),
  consolidate: verb(z.tuple([namespaceSchema, z.strictObject({ dryRun: z.boolean().optional(), actor: z.string().min(1).max(64).optional() }).optional()]), (store, [n, o]) => store.memory.consolidate(ns(n), opts<ConsolidateOptions>(o))),
  addTurn: verb(z.tuple([sessionSchema, roleSchema, z.string().max(1_000_000)]), (store, [session, role, content]) => store.session(session as SessionOptions & { id: string }).addTurn(role, content)),
  context: verb(z.tuple([sessionSchema, z.string().max(32_768)]), (store, [session, query]) => store.session(session as SessionOptions & { id: string }).context(query)),
} satisfies Record<MemoryVerb, Verb>;

/** The device store, open, with the renderer's conversations (one core Session per conversation, so turn numbers go on). */
export class DeviceStore {
  readonly #sessions = new Map<string, Session>();

  private constructor(
    readonly memory: Memory,
    readonly info: DeviceStoreInfo,
  ) {}

  /**
   * Opens the device store (`directory` default: `$ZEROMEM_HOME`, else `~/.zeromem`), also
   * while other processes (`zeromem-mcp`, `zeromem serve`, the CLI) have it open.
   * @throws ZeromemError STORAGE_FAILED (`corrupt`: a damaged file, left as it was; `read-only`: a file or folder this process may not write)
   */
  static async open(directory = defaultDirectory()): Promise<DeviceStore> {
    const memory = await openMemory({ name: DEVICE_STORE_NAME, directory, actor: 'zeromem-desktop' });
    return new DeviceStore(memory, { name: DEVICE_STORE_NAME, directory, file: join(directory, `${DEVICE_STORE_NAME}.sqlite`) });
  }

  session(options: SessionOptions & { id: string }): Session {
    const key = JSON.stringify(options);
    let session = this.#sessions.get(key);
    if (!session) {
      session = this.memory.session(options);
      this.#sessions.set(key, session);
    }
    return session;
  }

  close(): Promise<void> {
    this.#sessions.clear();
    return this.memory.close();
  }
}
