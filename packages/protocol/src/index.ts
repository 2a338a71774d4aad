/**
 * `@zeromem/protocol`: what a replica and the relay say to each other, in one place: room
 * names and how a room travels in the URL path, the websocket close codes, and what a relay
 * token grants (its claims read without a key). Issuing and verifying tokens needs a key and
 * `jose`: `@zeromem/protocol/token`. This entry imports nothing, so a replica (in a browser
 * too) loads no signing code.
 *
 * @packageDocumentation
 */
export { CLOSE } from './close-codes.ts';
export { RelayError, RELAY_ERROR_CODES, type RelayErrorCode } from './errors.ts';
export { MAX_ROOM_LENGTH, parseRoomPath, roomNameProblem, roomSegment, type RoomNameProblem } from './room-name.ts';
export { CLOCK_SKEW_SECONDS, MAX_TTL_SECONDS, MIN_SECRET_BYTES, readClaims, readGrant, type Access, type Grant, type TokenGrant } from './token-grant.ts';
