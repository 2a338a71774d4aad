import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import type { Namespace } from '@zeromem/core';

/** How the server runs, from its flags and environment. */
export interface ServerConfig {
  /** The one namespace of every tool call. */
  namespace: Namespace;
  /** The memory's database name. */
  db: string;
  /** The directory its file is kept in (`--dir`); undefined: `$ZEROMEM_HOME`, else `~/.zeromem`. */
  directory: string | undefined;
  transport: 'stdio' | 'http';
  http: { host: string; port: number; token: string; allowedHosts: string[] | undefined; allowedOrigins: string[] } | undefined;
  /** Join the namespace's shared copy through a relay. */
  share: { url: string; token: string; encryptionKey: string | undefined } | undefined;
  /** `--embedder`: `bundled` (default), `none` or a local model folder, as `zeromem serve` reads it. */
  embedder: string;
}

/** A mistake in the command line or environment: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage: zeromem-mcp [options]

An MCP server giving an MCP client (Claude Desktop, Cursor, an IDE agent) zeromem memory
tools: add_memory, search_memories, get_memory, list_memories, update_memory,
delete_memory, delete_all_memories, build_context, set_fact, get_profile. Every
call works in one namespace, set here (never by the model). Nothing calls an LLM.

Namespace (flags win over the environment):
  --user <id>          ZEROMEM_USER    the user the memories belong to (default: your login name)
  --agent <id>         ZEROMEM_AGENT   an agent-private namespace of that user
  --scope <name>       ZEROMEM_SCOPE   a further separation (a project, a client)

Storage (on disk, kept across restarts; shared with other processes on the same store):
  --db <name>          ZEROMEM_DB      the memory's database name (default "zeromem")
  --dir <path>         ZEROMEM_HOME    the directory of its file, <dir>/<name>.sqlite
                                       (default ~/.zeromem)

Recall:
  --embedder <choice>                  bundled (default: the offline models, zeromem-static-en
                                       for English and bge-small-zh-v1.5 for text with Chinese
                                       characters; recall is hybrid: words and meaning),
                                       minilm (the same with all-MiniLM-L6-v2 for English:
                                       better on short texts, far slower), none (BM25 only),
                                       or a local model folder

Transport (default stdio):
  --http                               serve Streamable HTTP at http://<host>:<port>/mcp
  --host <addr>        ZEROMEM_MCP_HOST  default 127.0.0.1 (loopback)
  --port <n>           ZEROMEM_MCP_PORT  default 8765 (0: any free port)
  --allowed-host <h>                   Host header names accepted (repeat); required for a
                                       host that is not loopback
  --allowed-origin <o>                 browser Origins accepted (repeat); requests with any
                                       other Origin header are refused
                       ZEROMEM_MCP_TOKEN the bearer token every HTTP request must carry
                                       (required with --http)

Sharing:
  --share                              join the namespace's shared copy through a relay, so
                                       other apps and devices see the same memory
                       ZEROMEM_RELAY_URL    the relay, e.g. wss://relay.example.com
                       ZEROMEM_RELAY_TOKEN  a relay token for the namespace
                       ZEROMEM_ENCRYPTION_KEY  the namespace key, when the room is encrypted

  -h, --help                           show this help
`;

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

/** Reads the configuration; throws {@link UsageError} saying what to fix. */
export function readConfig(argv: readonly string[], env: Record<string, string | undefined>): ServerConfig | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        user: { type: 'string' },
        agent: { type: 'string' },
        scope: { type: 'string' },
        db: { type: 'string' },
        dir: { type: 'string' },
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
        'allowed-origin': { type: 'string', multiple: true },
        share: { type: 'boolean' },
        embedder: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  const pick = (flag: string | undefined, name: string) => (flag ?? env[name])?.trim() || undefined;
  const userId = pick(values.user, 'ZEROMEM_USER') ?? userInfo().username;
  const agentId = pick(values.agent, 'ZEROMEM_AGENT');
  const scope = pick(values.scope, 'ZEROMEM_SCOPE');
  const namespace: Namespace = { userId, ...(agentId ? { agentId } : {}), ...(scope ? { scope } : {}) };

  let http: ServerConfig['http'];
  if (values.http) {
    const host = pick(values.host, 'ZEROMEM_MCP_HOST') ?? '127.0.0.1';
    const portText = pick(values.port, 'ZEROMEM_MCP_PORT') ?? '8765';
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be a port number 0..65535, got "${portText}"`);
    const token = env.ZEROMEM_MCP_TOKEN?.trim();
    if (!token) throw new UsageError('--http needs a bearer token: set ZEROMEM_MCP_TOKEN (e.g. to the output of `openssl rand -hex 32`)');
    if (token.length < 16) throw new UsageError('ZEROMEM_MCP_TOKEN must be at least 16 characters');
    const allowedHosts = values['allowed-host'];
    if (!LOOPBACK.includes(host) && !allowedHosts?.length) throw new UsageError(`--host ${host} is not loopback: name the Host headers to accept with --allowed-host`);
    http = { host, port, token, allowedHosts, allowedOrigins: values['allowed-origin'] ?? [] };
  } else if (values.host || values.port || values['allowed-host'] || values['allowed-origin']) {
    throw new UsageError('--host, --port, --allowed-host and --allowed-origin need --http');
  }

  let share: ServerConfig['share'];
  if (values.share) {
    const url = env.ZEROMEM_RELAY_URL?.trim();
    const token = env.ZEROMEM_RELAY_TOKEN?.trim();
    if (!url || !token) throw new UsageError('--share needs ZEROMEM_RELAY_URL and ZEROMEM_RELAY_TOKEN (a relay token for this namespace)');
    share = { url, token, encryptionKey: env.ZEROMEM_ENCRYPTION_KEY?.trim() || undefined };
  }
  // ZEROMEM_HOME itself is read by core (openMemory's default directory).
  const directory = values.dir === undefined ? undefined : values.dir.trim();
  if (directory === '') throw new UsageError('--dir must be a path to a directory');
  const embedder = values.embedder === undefined ? 'bundled' : values.embedder.trim();
  if (embedder === '') throw new UsageError('--embedder must be bundled, none or a model folder');
  return { namespace, db: pick(values.db, 'ZEROMEM_DB') ?? 'zeromem', directory, transport: http ? 'http' : 'stdio', http, share, embedder };
}
