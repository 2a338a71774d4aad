import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openMemory, type Memory } from '@zeromem/core';
import { SERVICE_DEFAULTS } from './app.ts';
import { startService } from './serve.ts';

/** Usage of `zeromem serve` (and `zeromem-server`). */
export const SERVE_USAGE = `Usage: zeromem serve [options]

Runs the zeromem memory service: every memory verb over HTTP under /v1 (OpenAPI 3.1 at
GET /openapi.json, health at GET /healthz), for agents in any language.

Options:
  --name <name>            memory store name (default "zeromem")
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

  let memory: Memory;
  try {
    memory = await openStore(values.name ?? 'zeromem');
  } catch (err) {
    io.stderr.write(`zeromem serve: cannot open the memory store: ${(err as Error).message}\n`);
    return 1;
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
    await memory.close();
    io.stderr.write(`zeromem serve: cannot listen: ${(err as Error).message}\n`);
    return 1;
  }
  io.stdout.write(`zeromem serve: listening on ${service.url} (memory "${memory.name}")\n`);
  if (generated) io.stdout.write(`token: ${token}\n`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  io.stdout.write(`zeromem serve: ${signal}, stopping\n`);
  await service.close();
  await memory.close();
  return 0;
}

/** The service's memory store. */
async function openStore(name: string): Promise<Memory> {
  const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
  return openMemory({ name, indexedDB: new IDBFactory(), IDBKeyRange });
}
