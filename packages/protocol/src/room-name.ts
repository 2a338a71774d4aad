/** Longest room name accepted, in characters (a namespace key of three 256-character names fits). */
export const MAX_ROOM_LENGTH = 4096;

/** Why a room name or path was refused, for the HTTP 400 answer. */
export type RoomNameProblem = 'empty' | 'too-long' | 'bad-encoding' | 'control-character' | 'nested-path';

// C0 controls, DEL and C1 controls: invisible in logs and never part of a namespace key.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// With the u flag a surrogate range matches only unpaired halves (not valid UTF-8).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Checks a decoded room name; `undefined` when it is acceptable. */
export function roomNameProblem(room: string): RoomNameProblem | undefined {
  if (room.length === 0) return 'empty';
  if (room.length > MAX_ROOM_LENGTH) return 'too-long';
  if (CONTROL.test(room)) return 'control-character';
  if (LONE_SURROGATE.test(room)) return 'bad-encoding';
  return undefined;
}

/**
 * The room named by a request path: `/<encodeURIComponent(room)>` (the y-websocket client
 * appends the room to the server URL, so clients must encode it). The path is decoded
 * exactly once; a raw `/` inside the room would be a second path segment and is refused,
 * an encoded one (`%2F`) is part of the name.
 */
export function parseRoomPath(pathname: string): { room: string } | { problem: RoomNameProblem } {
  if (!pathname.startsWith('/')) return { problem: 'empty' };
  const encoded = pathname.slice(1);
  if (encoded.includes('/')) return { problem: 'nested-path' };
  if (encoded.length > MAX_ROOM_LENGTH * 9) return { problem: 'too-long' };
  let room: string;
  try {
    room = decodeURIComponent(encoded);
  } catch {
    return { problem: 'bad-encoding' };
  }
  const problem = roomNameProblem(room);
  return problem ? { problem } : { room };
}

/**
 * A room as the one segment of the request path that {@link parseRoomPath} reads back (the
 * room URI-encoded): y-websocket appends it to the relay's URL after a `/`.
 */
export function roomSegment(room: string): string {
  return encodeURIComponent(room);
}
