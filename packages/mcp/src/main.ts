import { hostname } from 'node:os';
import { defaultDirectory, openMemory, type Embedder, type Memory, type Namespace } from '@zeromem/core';
import type { SharedNamespace } from '@zeromem/sync';
import { USAGE, UsageError, readConfig, type ServerConfig } from './config.ts';
import { createMemoryServer } from './server.ts';
import { serveStdio } from './stdio.ts';

interface Io {
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

/**
 * Runs `zeromem-mcp` until stdin closes (stdio) or a SIGINT/SIGTERM arrives; resolves to
 * the exit code. Logs go to stderr: stdout belongs to the MCP protocol.
 */
export async function main(argv: readonly string[], io: Io = { stderr: process.stderr, env: process.env }): Promise<number> {
  let config: ServerConfig | 'help';
  try {
    config = readConfig(argv, io.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`zeromem-mcp: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (config === 'help') {
    io.stderr.write(USAGE);
    return 0;
  }
  const log = (line: string) => io.stderr.write(`zeromem-mcp: ${line}\n`);
  // One directory for the memory and the shared copy's document: both on disk.
  const directory = config.directory ?? defaultDirectory();
  let embedder: Embedder | undefined;
  try {
    embedder = await loadEmbedder(config.embedder);
  } catch (err) {
    log(`cannot load the embedder: ${(err as Error).message}\n(start with --embedder none for BM25-only recall)`);
    return 1;
  }
  const memory = await openMemory({
    name: config.db,
    actor: 'mcp',
    directory,
    ...(embedder ? { embedder } : {}),
    // The bundled models load on their first text, after ready: a model that fails then is
    // logged (and retried) while recall answers by words, not a crash of the server.
    onBackgroundError: (err) => log(`${err.code}: ${err.message}`),
  });
  let share: SharedNamespace | undefined;
  if (config.share) {
    // Loaded only for --share (like the HTTP transport and the embedder below): a server
    // that does not use them starts sooner and smaller (docs/BENCHMARKS.md, issue 32).
    const [{ shareNamespace }, { default: WebSocket }] = await Promise.all([import('@zeromem/sync'), import('ws')]);
    share = await shareNamespace(memory, config.namespace, {
      url: config.share.url,
      token: config.share.token,
      WebSocketPolyfill: WebSocket,
      agentName: 'zeromem-mcp',
      deviceName: hostname(),
      ...(config.share.encryptionKey ? { encryptionKey: config.share.encryptionKey } : {}),
      onError: (err) => log(`share: ${err.code}: ${err.message}`),
    });
    share.synced.then(
      () => log(`shared with ${config.share!.url}`),
      (err: Error) => log(`share: ${err.message}`),
    );
  }
  const recall = embedder ? 'hybrid' : 'BM25 only';

  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let closeTransport: () => Promise<void>;
  let failed = () => false;
  if (config.transport === 'http') {
    const { startHttpServer } = await import('./http.ts');
    // Stateless: each request has its own server, with nothing to send change notifications on.
    const endpoint = await startHttpServer({ ...config.http!, serverFor: () => createMemoryServer({ memory, namespace: config.namespace, watch: false }) });
    log(`serving ${endpoint.url} for namespace ${JSON.stringify(config.namespace)} (recall: ${recall})`);
    closeTransport = endpoint.close;
  } else {
    const stdio = await serveStdio(createMemoryServer({ memory, namespace: config.namespace }), { log, stop });
    log(`ready on stdio for namespace ${JSON.stringify(config.namespace)} (recall: ${recall})`);
    closeTransport = stdio.close;
    failed = stdio.failed;
  }
  const warm = warmUp(memory, config.namespace, log);
  await stopped;
  await closeTransport();
  await share?.close();
  await warm;
  await memory.close();
  return failed() ? 1 : 0;
}

/**
 * Pays the first search's costs while the client is still starting, not on the user's first
 * question: one recall that counts as no access restores the namespace's search index from
 * its snapshot and loads the embedding model and the date parser (20k memories: about 1 s
 * of a first search on a 2-core machine; docs/BENCHMARKS.md, issue 32). A search that comes
 * meanwhile waits for the same work, never for it twice. A failure here is left to the
 * first search to report.
 */
async function warmUp(memory: Memory, namespace: Namespace, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  try {
    await memory.recall(namespace, 'warm up', { k: 1, trackAccess: false });
  } catch {
    return;
  }
  const count = await memory.count(namespace).catch(() => undefined);
  log(`search index ready (${count ?? '?'} memories, ${Math.round(performance.now() - started)} ms)`);
}

/**
 * The embedder `--embedder` names, read by the parser every door shares
 * (`parseEmbedderChoice` of `@zeromem/embed-transformers`): `bundled` (the offline English
 * static model and, for text with Chinese characters, the bundled Chinese model), `minilm` (the
 * same with the English sentence model all-MiniLM-L6-v2), `none` (BM25 only), or a local model folder or model id. Nothing is ever downloaded; the ONNX
 * runtime is loaded only when asked for.
 */
async function loadEmbedder(choice: string): Promise<Embedder | undefined> {
  if (choice === 'none') return undefined;
  const { createEmbedderFromChoice, parseEmbedderChoice } = await import('@zeromem/embed-transformers');
  return createEmbedderFromChoice(parseEmbedderChoice(choice));
}
