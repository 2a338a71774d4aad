import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `result` to `file` as the latest run, the file's earlier latest and its history
 * (up to `keep` runs, newest first) under `history`; an unreadable file starts a new history.
 */
export function writeWithHistory(file: string, result: object, keep = 9): void {
  mkdirSync(dirname(file), { recursive: true });
  let history: unknown[] = [];
  if (existsSync(file)) {
    try {
      const { history: older = [], ...latest } = JSON.parse(readFileSync(file, 'utf8')) as { history?: unknown[] };
      history = [latest, ...older].slice(0, keep);
    } catch {
      history = [];
    }
  }
  writeFileSync(file, `${JSON.stringify({ ...result, history }, null, 2)}\n`);
}
