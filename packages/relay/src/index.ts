/**
 * `@zeromem/relay`: a websocket relay speaking the y-websocket sync and awareness protocol,
 * with token auth at the upgrade, durable SQLite storage with compaction, and limits.
 */
export { startRelay, type Relay, type RelayStats } from './server/server.ts';
export { DEFAULTS, type RelayOptions } from './options.ts';
export { issueToken, verifyToken, checkSecret, TokenRefused, MIN_SECRET_BYTES, MAX_TTL_SECONDS, CLOCK_SKEW_SECONDS, type Access, type Grant, type TokenRequest, type TokenProblem } from './auth/token.ts';
export { RelayError, RELAY_ERROR_CODES, type RelayErrorCode } from './errors.ts';
export { CLOSE } from './close-codes.ts';
export { createLogger, LOG_LEVELS, type LogLevel, type Logger, type LogFields } from './log.ts';
export { DATABASE_FILE } from './storage/sqlite-store.ts';
export { MAX_ROOM_LENGTH } from './room/room-name.ts';
