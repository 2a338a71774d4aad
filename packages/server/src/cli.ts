import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDirectory, isZeromemError, namespaceKey, openMemory, type Embedder, type Memory, type Namespace } from '@zeromem/core';
import { parseNamespaceKey } from '@zeromem/core/internal';
import type { SharedNamespace } from '@zeromem/sync';
import { SERVICE_DEFAULTS } from './app.ts';
import { loadEmbedder } from './embedder-option.ts';
import { startService } from './serve.ts';
import { startShares, type ShareSettings } from './shares.ts';

/** Usage of `zeromem serve` (and `zeromem-server`). */
export const SERVE_USAGE = `Usage: zeromem serve [options]

Runs the zeromem memory service: every memory verb over HTTP under /v1 (OpenAPI 3.1 at
GET /openapi.json, health at GET /healthz), for agents in any language.

Options:
  --name <name>            memory store name (default "zeromem")
  --dir <path>             directory of the store's file, <dir>/<name>.sqlite (default:
                           ZEROMEM_HOME, else ~/.zeromem); shared with other processes
  --embedder <choice>      bundled (default: the offline models, bge-small-zh-v1.5 for
                           Chinese text, zeromem-static-en for the rest; recall is
                           hybrid), minilm (the same with all-MiniLM-L6-v2 for
                           English: better on short English texts, slower), none (BM25
                           only), a bundled model's name, or a local model folder
  --host <host>            address to bind (default 127.0.0.1: this machine only)
  --port <port>            port (default 8788; 0 picks a free one)
  --token <token>          the bearer token (default: ZEROMEM_SERVE_TOKEN, else a new
                           random one, printed at start)
  --token-secret <secret>  also accept namespace-limited tokens in the relay's format
                           (zeromem-relay token --room <namespace key>) signed with this
                           secret (default: ZEROMEM_SERVE_TOKEN_SECRET)
  --cors-origin <origin>   allow browser calls from this origin (repeatable; default none)
  --max-body-bytes <n>     largest JSON body (default ${SERVICE_DEFAULTS.maxBodyBytes})
  --max-import-bytes <n>   largest JSONL import body (default ${SERVICE_DEFAULTS.maxImportBytes})
  --max-batch <n>          most memories per batch write (default ${SERVICE_DEFAULTS.maxBatch})
  --share <namespace key>  share this namespace through a relay (repeatable), e.g.
                           --share 'u=wang;a=after-sales': the user's devices and the
                           service then see one memory
  --relay-url <url>        the relay of --share (default: ZEROMEM_RELAY_URL)
  --relay-token <token>    a relay token granting every shared namespace (default:
                           ZEROMEM_RELAY_TOKEN); ZEROMEM_ENCRYPTION_KEY: the namespaces'
                           key when their rooms are encrypted
  -h, --help               show this help

Every /v1 request needs "Authorization: Bearer <token>". Errors are
{ "error": { "code", "message", "details" } } with 400, 401, 403, 404, 409, 413, 507 or 503.
Stops cleanly on Ctrl-C or SIGTERM.
`;

interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Parses the arguments, opens the memory, starts the service; resolves to an exit code once it stopped. */
export async function runService(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, io: Io = process): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        name: { type: 'string' },
        dir: { type: 'string' },
        embedder: { type: 'string' },
        share: { type: 'string', multiple: true },
        'relay-url': { type: 'string' },
        'relay-token': { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        'token-secret': { type: 'string' },
        'cors-origin': { type: 'string', multiple: true },
        'max-body-bytes': { type: 'string' },
        'max-import-bytes': { type: 'string' },
        'max-batch': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    io.stderr.write(`zeromem serve: ${(err as Error).message}\n\n${SERVE_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(SERVE_USAGE);
    return 0;
  }
  const numbers: Record<string, number | undefined> = {};
  for (const flag of ['port', 'max-body-bytes', 'max-import-bytes', 'max-batch'] as const) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const value = Number(raw);
    const min = flag === 'port' ? 0 : 1;
    if (!Number.isInteger(value) || value < min || (flag === 'port' && value > 65535)) {
      io.stderr.write(`zeromem serve: --${flag} must be a whole number${flag === 'port' ? ' from 0 to 65535' : ', 1 or more'}, got ${JSON.stringify(raw)}\n`);
      return 2;
    }
    numbers[flag] = value;
  }
  const token = values.token ?? env.ZEROMEM_SERVE_TOKEN ?? randomBytes(24).toString('base64url');
  const generated = values.token === undefined && env.ZEROMEM_SERVE_TOKEN === undefined;
  if (token.length < 16) {
    io.stderr.write('zeromem serve: the token must be at least 16 characters (e.g. `openssl rand -base64 24`)\n');
    return 2;
  }
  const tokenSecret = values['token-secret'] ?? env.ZEROMEM_SERVE_TOKEN_SECRET;
  if (tokenSecret !== undefined && new TextEncoder().encode(tokenSecret).length < 32) {
    io.stderr.write('zeromem serve: the token secret must be at least 32 bytes (e.g. `openssl rand -base64 48`)\n');
    return 2;
  }

  if (values.dir?.trim() === '') {
    io.stderr.write('zeromem serve: --dir must be a path to a directory\n');
    return 2;
  }
  const directory = values.dir === undefined ? defaultDirectory() : resolve(values.dir);
  const shareSettings = readShareSettings(values.share ?? [], values['relay-url'] ?? env.ZEROMEM_RELAY_URL, values['relay-token'] ?? env.ZEROMEM_RELAY_TOKEN, env);
  if (typeof shareSettings === 'string') {
    io.stderr.write(`zeromem serve: ${shareSettings}\n`);
    return 2;
  }

  const embedderChoice = values.embedder ?? 'bundled';
  let embedder: Embedder | undefined;
  try {
    embedder = await loadEmbedder(embedderChoice);
  } catch (err) {
    io.stderr.write(`zeromem serve: cannot load the embedder: ${describeError(err)}\n(start with --embedder none for BM25-only recall)\n`);
    return 1;
  }
  let memory: Memory;
  try {
    memory = await openMemory({
      name: values.name ?? 'zeromem',
      directory,
      ...(embedder ? { embedder } : {}),
      // The bundled models load on their first text, after ready: a model that fails then is
      // logged (and retried) while recall answers by words, not a crash of the service.
      onBackgroundError: (err) => io.stderr.write(`zeromem serve: ${err.code}: ${err.message}\n`),
    });
  } catch (err) {
    io.stderr.write(`zeromem serve: cannot open the memory store: ${describeError(err)}\n`);
    return 1;
  }
  let shares: SharedNamespace[] = [];
  if (shareSettings) {
    try {
      shares = await startShares(memory, shareSettings, (err) => io.stderr.write(`zeromem serve: share: ${describeError(err)}\n`));
    } catch (err) {
      await memory.close();
      io.stderr.write(`zeromem serve: cannot share: ${describeError(err)}\n`);
      return 1;
    }
    for (const share of shares) {
      share.synced.then(
        () => io.stdout.write(`zeromem serve: shared ${share.room} with ${shareSettings.url}\n`),
        (err: unknown) => io.stderr.write(`zeromem serve: share ${share.room}: ${describeError(err)}\n`),
      );
    }
  }
  let service;
  try {
    service = await startService(memory, {
      token,
      tokenSecret,
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(numbers.port === undefined ? {} : { port: numbers.port }),
      ...(numbers['max-body-bytes'] === undefined ? {} : { maxBodyBytes: numbers['max-body-bytes'] }),
      ...(numbers['max-import-bytes'] === undefined ? {} : { maxImportBytes: numbers['max-import-bytes'] }),
      ...(numbers['max-batch'] === undefined ? {} : { maxBatch: numbers['max-batch'] }),
      ...(values['cors-origin'] ? { corsOrigins: values['cors-origin'] } : {}),
    });
  } catch (err) {
    await Promise.all(shares.map((share) => share.close()));
    await memory.close();
    io.stderr.write(`zeromem serve: cannot listen: ${(err as Error).message}\n`);
    return 1;
  }
  const recall = embedderChoice === 'none' ? 'BM25 only' : 'hybrid';
  io.stdout.write(`zeromem serve: listening on ${service.url} (memory "${memory.name}" in ${directory}, recall ${recall})\n`);
  if (generated) io.stdout.write(`token: ${token}\n`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  io.stdout.write(`zeromem serve: ${signal}, stopping\n`);
  await service.close();
  await Promise.all(shares.map((share) => share.close()));
  await memory.close();
  return 0;
}

/** The `--share` settings, `undefined` without `--share`, or what is wrong with them. */
function readShareSettings(keys: string[], url: string | undefined, token: string | undefined, env: NodeJS.ProcessEnv): ShareSettings | undefined | string {
  if (keys.length === 0) return undefined;
  const namespaces: Namespace[] = [];
  for (const key of keys) {
    const namespace = parseNamespaceKey(key);
    if (!namespace) return `--share takes a namespace key like 'u=wang;a=after-sales' (parts URI-encoded, as zeromem-relay token --room takes it), got ${JSON.stringify(key)}`;
    if (namespaces.some((known) => namespaceKey(known) === key)) return `--share ${key} is given twice`;
    namespaces.push(namespace);
  }
  if (!url?.trim() || !token?.trim()) return '--share needs a relay: --relay-url (or ZEROMEM_RELAY_URL) and --relay-token (or ZEROMEM_RELAY_TOKEN), a token granting every shared namespace';
  return { namespaces, url: url.trim(), token: token.trim(), encryptionKey: env.ZEROMEM_ENCRYPTION_KEY?.trim() || undefined };
}

/** A coded error as `CODE (reason): message`, e.g. `STORAGE_FAILED (locked): Another process ...`. */
function describeError(err: unknown): string {
  if (!isZeromemError(err)) return (err as Error).message;
  const reason = err.details.storage?.reason;
  return `${err.code}${reason ? ` (${reason})` : ''}: ${err.message}`;
}
