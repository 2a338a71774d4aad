/**
 * `@zeromem/relay`: a websocket relay speaking the y-websocket sync and awareness protocol,
 * with token auth at the upgrade, durable SQLite storage with compaction, and limits.
 */
export { startRelay, type Relay, type RelayStats } from './server/server.ts';
export { DEFAULTS, type RelayOptions } from './options.ts';
// The wire contract is @zeromem/protocol's; the relay's API re-exports what a relay operator uses.
export { issueToken, verifyToken, checkSecret, TokenRefused, type TokenRequest, type TokenProblem } from '@zeromem/protocol/token';
export { CLOCK_SKEW_SECONDS, CLOSE, MAX_ROOM_LENGTH, MAX_TTL_SECONDS, MIN_SECRET_BYTES, RELAY_ERROR_CODES, RelayError, type Access, type Grant, type RelayErrorCode } from '@zeromem/protocol';
export { createLogger, LOG_LEVELS, type LogLevel, type Logger, type LogFields } from './log.ts';
export { DATABASE_FILE } from './storage/sqlite-store.ts';
