// A strict TypeScript consumer of the published types (type-checked, never run).
import {
  openMemory,
  isZeromemError,
  type AuditOptions,
  type BuildContextOptions,
  type BuiltContext,
  type ConsolidateOptions,
  type ExportOptions,
  type GetOptions,
  type ImportOptions,
  type Memory,
  type RecallOptions,
  type RecallResult,
  type RememberInput,
  type RememberResult,
  type RetierOptions,
} from '@zeromem/core';
import { createTransformersEmbedder, onnxWasmFiles, type TransformersEmbedderOptions } from '@zeromem/embed-transformers';
import { createWorkerEmbedder, type WorkerEmbedderOptions } from '@zeromem/embed-transformers/browser';
import { shareNamespace, type ShareOptions, type SharedNamespace } from '@zeromem/sync';
import { issueToken, startRelay, type Relay, type RelayOptions } from '@zeromem/relay';

export async function node(options: TransformersEmbedderOptions): Promise<string[]> {
  const embedder = await createTransformersEmbedder(options);
  const memory: Memory = await openMemory({ name: 'typed', embedder });
  const input: RememberInput = { namespace: { userId: 'u' }, content: 'Prefers phone calls', tags: ['contact'] };
  const written: RememberResult = await memory.remember(input);
  const recallOptions: RecallOptions = { k: 3, layers: ['long_term'], trackAccess: false };
  const result: RecallResult = await memory.recall({ userId: 'u' }, 'phone', recallOptions);
  const contextOptions: BuildContextOptions = { namespace: { userId: 'u' }, query: 'phone', budget: 100 };
  const built: BuiltContext = await memory.buildContext(contextOptions);
  const get: GetOptions = { rewarm: false };
  const audit: AuditOptions = { after: 0, limit: 10 };
  const consolidate: ConsolidateOptions = { dryRun: true };
  const retier: RetierOptions = { namespace: { userId: 'u' } };
  const exportOptions: ExportOptions = { vectors: false };
  const importOptions: ImportOptions = { skipInvalid: true };
  await memory.get({ userId: 'u' }, written.record.id, get);
  await memory.audit({ userId: 'u' }, audit);
  await memory.consolidate({ userId: 'u' }, consolidate);
  await memory.retier(retier);
  await memory.importJsonl(await memory.exportJsonl({ userId: 'u' }, exportOptions), importOptions);
  // @ts-expect-error recall options are checked: k is a number
  await memory.recall({ userId: 'u' }, 'phone', { k: 'three' });
  // @ts-expect-error what only sync uses is not part of Memory
  void memory.applyReplicated;
  try {
    await memory.remember({ namespace: { userId: 'u' }, content: '' });
  } catch (err) {
    if (isZeromemError(err, 'INVALID_INPUT')) return [err.code, built.text, String(result.hits.length), ...onnxWasmFiles()];
  }
  return [];
}

export async function browser(memory: Memory, worker: Worker, share: Omit<ShareOptions, 'url' | 'token'>): Promise<SharedNamespace> {
  const options: WorkerEmbedderOptions = { worker, modelBaseUrl: '/models/', wasmPaths: '/ort/' };
  await createWorkerEmbedder(options);
  return shareNamespace(memory, { userId: 'u' }, { ...share, url: 'wss://relay.example', token: 't' });
}

export async function relay(secret: string): Promise<Relay> {
  const options: RelayOptions = { secret, dataDir: './relay-data', port: 0, logLevel: 'silent' };
  const started = await startRelay(options);
  await issueToken({ secret, subject: 'laptop', rooms: ['u=u'], ttlSeconds: 3600 });
  return started;
}
