import { randomBytes } from 'node:crypto';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { MAX_TTL_SECONDS, RelayError, readClaims } from '@zeromem/protocol';
import { LOG_LEVELS, type LogLevel } from './log.ts';
import { DEFAULTS, LIMITS, type RelayOptions, flagVariable } from './options.ts';
import { parseDurationSeconds } from './duration-seconds.ts';
import { type Relay, startRelay } from './server/server.ts';
import { issueToken } from '@zeromem/protocol/token';
import { PostgresStore } from './storage/postgres-store.ts';
import { announceRevocation } from './cluster/redis-coordination.ts';
import { revocation } from './auth/revocations.ts';
import type { Revocation } from './storage/room-storage.ts';
import { SqliteStore } from './storage/sqlite-store.ts';

/** The port the command line listens on when none is given (the library defaults to 0). */
export const CLI_DEFAULT_PORT = 8787;

/** One `--help` entry per limit: flag, help with its default, the variable on the next line. */
const LIMIT_USAGE = LIMITS.map(({ key, flag, help }) => `  ${`--${flag} <n>`.padEnd(34)}${help} (default ${DEFAULTS[key]})\n${' '.repeat(77)}${flagVariable(flag)}\n`).join('');

const USAGE = `Usage: zeromem-relay [serve] [options]
       zeromem-relay token --room <namespace key> [--room ...] [options]
       zeromem-relay revoke (--token-id <id> | --subject <name> | --token <jwt>) [options]

Runs the zeromem sync relay: a y-websocket server for shared namespaces with token
auth, durable SQLite storage and compaction. Clients connect to
ws://<host>:<port>/<encodeURIComponent(namespace key)>?token=<token>
(or send "Authorization: Bearer <token>"). GET /healthz answers JSON.

Options (each also read from the environment variable shown):
  --secret <s>                      HMAC secret, at least 32 bytes; required   ZEROMEM_RELAY_SECRET
                                    (prefer the variable: arguments show in ps)
  --port <n>                        port, 0 for any free one (default ${CLI_DEFAULT_PORT})   ZEROMEM_RELAY_PORT
  --host <addr>                     interface (default ${DEFAULTS.host})          ZEROMEM_RELAY_HOST
  --data-dir <dir>                  database directory (default ./zeromem-relay-data)
                                                                             ZEROMEM_RELAY_DATA_DIR
  --postgres-url <url>              store in PostgreSQL, shared by instances (with --redis-url)
                                                                             ZEROMEM_RELAY_POSTGRES_URL
  --redis-url <url>                 share changes, connection counts, leases through Redis
                                                                             ZEROMEM_RELAY_REDIS_URL
${LIMIT_USAGE}  --log-level <level>               ${LOG_LEVELS.join(', ')} (default info)    ZEROMEM_RELAY_LOG_LEVEL
  --quiet                           same as --log-level error
  -h, --help                        show this help

Once listening it prints its ws:// URL on stdout; logs are JSON lines on stderr. SIGTERM or SIGINT: stop accepting, compact and store every
open room, close the sockets (1001), exit 0.

Run "zeromem-relay token --help" for issuing tokens, "zeromem-relay revoke --help" for revoking them.
Exit codes: 0 done; 1 the relay failed (storage empty or damaged, port in use); 2 bad arguments.
`;

const TOKEN_USAGE = `Usage: zeromem-relay token --room <namespace key> [--room ...] [options]

Prints a signed token (HS256 JWT) granting the rooms (shared namespace keys, as
@zeromem/core builds them, e.g. "u=alice;s=support") to a client.

Options:
  --room <key>        a room to grant; repeat for several (required)
  --read-only         grant reading only: the relay drops this client's updates
  --ttl <duration>    lifetime: 90, 45s, 30m, 12h, 7d (default 1h, at most 366d)
  --subject <name>    who holds it (a device or agent); connection limits count per
                      subject (default: a fresh "client-<random>" per token)
  --secret <s>        the relay's secret (or ZEROMEM_RELAY_SECRET)
  -h, --help          show this help
`;

const REVOKE_USAGE = `Usage: zeromem-relay revoke (--token-id <id> | --subject <name> | --token <jwt>) [options]

Revokes tokens on every instance of the relay: open sockets holding them are closed with
4403 within a second, upgrades with them get HTTP 401. A token id revokes that token; a
subject revokes every token of that subject issued up to now (tokens issued to it later
are valid). Revocations are kept until every token they cover has expired (366 days).

Options:
  --token-id <id>       the token's id (its "jti" claim)
  --subject <name>      the subject whose tokens to revoke
  --token <jwt>         a token: revokes its id (or, if it has none, its subject)
  --postgres-url <url>  the instances' PostgreSQL (or ZEROMEM_RELAY_POSTGRES_URL)
  --redis-url <url>     their Redis, told at once (or ZEROMEM_RELAY_REDIS_URL; optional)
  --data-dir <dir>      a single relay's data directory instead (or ZEROMEM_RELAY_DATA_DIR)
  -h, --help            show this help
`;

/** A mistake on the command line: exit 2 with a usage hint. */
class UsageError extends Error {}

/** Where the command line writes. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Called with the running relay so the caller can wire signals; resolves when it should exit. */
export type ServeHook = (relay: Relay) => Promise<void>;

/**
 * Runs `zeromem-relay` with these arguments (without node and the script) and environment;
 * resolves to the exit code. `serve` gets the running relay and resolves once it stopped.
 */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo, serve: ServeHook): Promise<number> {
  const [first, ...rest] = argv;
  const command = first === 'token' || first === 'revoke' || first === 'serve' ? first : 'serve';
  const args = command === first ? rest : [...argv];
  try {
    if (command === 'token') return await token(args, env, io);
    if (command === 'revoke') return await revoke(args, env, io);
    const options = parseServeArgs(args, env);
    if (options === 'help') {
      io.stdout.write(USAGE);
      return 0;
    }
    const relay = await startRelay(options);
    // One machine-readable line, also under --quiet: scripts starting on port 0 read it.
    io.stdout.write(`${relay.url}\n`);
    await serve(relay);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err instanceof RelayError && (err.code === 'INVALID_CONFIG' || err.code === 'INVALID_INPUT'))) {
      const prefix = command === 'serve' ? 'zeromem-relay' : `zeromem-relay ${command}`;
      io.stderr.write(`${prefix}: ${err.message}\nRun "${prefix} --help" for usage.\n`);
      return 2;
    }
    io.stderr.write(`zeromem-relay: ${(err as Error).message}\n`);
    return 1;
  }
}

function parse(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function integerArg(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number, got "${value}"`);
  return Number(value);
}

function parseServeArgs(args: readonly string[], env: NodeJS.ProcessEnv): RelayOptions | 'help' {
  const { values } = parse(args, {
    secret: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
    'postgres-url': { type: 'string' },
    'redis-url': { type: 'string' },
    ...Object.fromEntries(LIMITS.map(({ flag }) => [flag, { type: 'string' as const }])),
    'log-level': { type: 'string' },
    quiet: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const pick = (flag: string, variable: string): string | undefined => (values[flag] as string | undefined) ?? env[variable];
  const logLevel = values.quiet ? 'error' : (pick('log-level', 'ZEROMEM_RELAY_LOG_LEVEL') ?? 'info');
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const options: RelayOptions = {
    secret: pick('secret', 'ZEROMEM_RELAY_SECRET') ?? '',
    dataDir: pick('data-dir', 'ZEROMEM_RELAY_DATA_DIR') ?? './zeromem-relay-data',
    port: integerArg('--port', pick('port', 'ZEROMEM_RELAY_PORT')) ?? CLI_DEFAULT_PORT,
    logLevel: logLevel as LogLevel,
  };
  const host = pick('host', 'ZEROMEM_RELAY_HOST');
  if (host !== undefined) options.host = host;
  const postgresUrl = pick('postgres-url', 'ZEROMEM_RELAY_POSTGRES_URL');
  const redisUrl = pick('redis-url', 'ZEROMEM_RELAY_REDIS_URL');
  if (postgresUrl) options.postgresUrl = postgresUrl;
  if (redisUrl) options.redisUrl = redisUrl;
  for (const { key, flag } of LIMITS) {
    const value = integerArg(`--${flag}`, pick(flag, flagVariable(flag)));
    if (value !== undefined) options[key] = value;
  }
  return options;
}

async function token(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const { values } = parse(args, {
    room: { type: 'string', multiple: true },
    'read-only': { type: 'boolean' },
    ttl: { type: 'string' },
    subject: { type: 'string' },
    secret: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(TOKEN_USAGE);
    return 0;
  }
  const rooms = (values.room as string[] | undefined) ?? [];
  if (rooms.length === 0) throw new UsageError('--room is required (a shared namespace key, e.g. "u=alice;s=support")');
  const ttlSeconds = parseDurationSeconds((values.ttl as string | undefined) ?? '1h');
  if (ttlSeconds === undefined || ttlSeconds < 1 || ttlSeconds > MAX_TTL_SECONDS) {
    throw new UsageError('--ttl must be a duration like 90, 45s, 30m, 12h or 7d, from 1 second to 366 days');
  }
  const signed = await issueToken({
    secret: (values.secret as string | undefined) ?? env.ZEROMEM_RELAY_SECRET ?? '',
    subject: (values.subject as string | undefined) ?? `client-${randomBytes(6).toString('hex')}`,
    rooms,
    access: values['read-only'] ? 'read' : 'read-write',
    ttlSeconds,
  });
  io.stdout.write(`${signed}\n`);
  return 0;
}

async function revoke(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const { values } = parse(args, {
    'token-id': { type: 'string' },
    subject: { type: 'string' },
    token: { type: 'string' },
    'postgres-url': { type: 'string' },
    'redis-url': { type: 'string' },
    'data-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(REVOKE_USAGE);
    return 0;
  }
  const given = (['token-id', 'subject', 'token'] as const).filter((flag) => values[flag] !== undefined);
  if (given.length !== 1) throw new UsageError('give exactly one of --token-id, --subject or --token');
  let entry: Revocation;
  if (values.token !== undefined) {
    const claims = readClaims(values.token as string);
    if (!claims) throw new UsageError('--token is not a JWT');
    if (typeof claims.jti === 'string' && claims.jti !== '') entry = revocation('token', claims.jti);
    else if (typeof claims.sub === 'string' && claims.sub !== '') entry = revocation('subject', claims.sub);
    else throw new UsageError('--token has neither an id (jti) nor a subject');
  } else if (values['token-id'] !== undefined) {
    entry = revocation('token', values['token-id'] as string);
  } else {
    entry = revocation('subject', values.subject as string);
  }
  if (entry.value === '' || entry.value.length > 256) throw new UsageError('the token id or subject must be 1 to 256 characters');
  const postgresUrl = (values['postgres-url'] as string | undefined) ?? env.ZEROMEM_RELAY_POSTGRES_URL;
  const redisUrl = (values['redis-url'] as string | undefined) ?? env.ZEROMEM_RELAY_REDIS_URL;
  const store = postgresUrl
    ? await PostgresStore.connect(postgresUrl)
    : new SqliteStore((values['data-dir'] as string | undefined) ?? env.ZEROMEM_RELAY_DATA_DIR ?? './zeromem-relay-data');
  try {
    await store.revoke(entry);
  } finally {
    await store.close();
  }
  let told = '';
  if (postgresUrl && redisUrl) {
    // The instances also re-read the list every second: a notice that fails only delays it.
    told = await announceRevocation(redisUrl).then(
      () => ', instances told',
      () => ', Redis not reached: instances see it within a second',
    );
  }
  io.stdout.write(`revoked ${entry.kind === 'token' ? 'token id' : 'subject'} ${entry.value}${told}\n`);
  return 0;
}
