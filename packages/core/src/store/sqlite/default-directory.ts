import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Where Node keeps memories when no `directory` is given: `$ZEROMEM_HOME` if it is set,
 * otherwise `.zeromem` in the user's home directory (`~/.zeromem`).
 */
export function defaultDirectory(): string {
  const home = process.env.ZEROMEM_HOME;
  return home ? resolve(home) : join(homedir(), '.zeromem');
}
