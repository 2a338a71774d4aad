/** How much the relay logs: `silent` for tests, `info` by default, `debug` for every refused write. */
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

/** Fields of one structured log line besides its level, time and message. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** A structured logger: one JSON object per line. */
export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** The log levels in order, for argument checking. */
export const LOG_LEVELS = Object.keys(RANK) as LogLevel[];

/**
 * A logger writing JSON lines (`{"time","level","msg",...fields}`) to `write`
 * (stderr by default), dropping lines below `level`.
 */
export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, msg: string, fields: LogFields = {}): void => {
    if (RANK[at] > RANK[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...fields })}\n`);
  };
  return {
    error: (msg, fields) => emit('error', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    debug: (msg, fields) => emit('debug', msg, fields),
  };
}
