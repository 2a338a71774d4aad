import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What {@link parseJobArgs} returns for options `T`. */
export type ParsedJobArgs<T extends Options> = ReturnType<typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>>;
import { invalidArgument } from './job-error.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options every job has: which store (`--dir`, `--name`) and `--help`. */
export const STORE_OPTIONS = {
  dir: { type: 'string' },
  name: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** The namespace options (`--user`, `--agent`, `--scope`). */
export const NAMESPACE_OPTIONS = {
  user: { type: 'string' },
  agent: { type: 'string' },
  scope: { type: 'string' },
} as const satisfies Options;

/** node:util parseArgs, strict, with its errors turned into INVALID_INPUT job errors. */
export function parseJobArgs<T extends Options>(args: readonly string[], options: T): ParsedJobArgs<T> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (err) {
    const e = err as Error & { code?: string };
    const option = /'(-[^' ]+)/.exec(e.message)?.[1];
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw invalidArgument(`unknown option ${option ?? e.message}`);
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) throw invalidArgument(`${option} needs a value`);
    throw invalidArgument(e.message);
  }
}

/** A whole number in a range, or INVALID_INPUT naming the option. */
export function wholeNumber(name: string, raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw invalidArgument(`${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ' up'}, got "${raw}"`);
  }
  return n;
}

/** No positional arguments beyond `allowed`. */
export function requirePositionals(positionals: string[], allowed: number, usage: string): void {
  if (positionals.length > allowed) throw invalidArgument(`unexpected argument "${positionals[allowed]}" (${usage})`);
}
