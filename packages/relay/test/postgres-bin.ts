import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The folder of PostgreSQL's server programs (initdb, pg_ctl, postgres): `ZEROMEM_PG_BIN`,
 * else the newest version Debian's `postgresql` package installed under /usr/lib/postgresql.
 */
export function postgresBin(): string {
  if (process.env.ZEROMEM_PG_BIN) return process.env.ZEROMEM_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return join(root, versions[0] ?? '15', 'bin');
}
