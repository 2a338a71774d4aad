import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { mulberry32 } from './mulberry32.ts';

/**
 * A seeded in-process link between sync peers, in place of a relay and its sockets, after
 * the idea of Yjs's `TestConnector` (tests/testHelper.js): nothing moves until the test says
 * so, and then one message at a time, picked by a seeded generator. A convergence property
 * that runs its replicas through it replays from its seed, with no timer and no polling of a
 * real relay: which connection's message moves next is the seed's, and the test fixes the
 * rest it controls (a fake clock, records picked by creation, each step settled before the
 * next). What stays random is what sync draws itself: each Y.Doc's client id (Yjs takes it
 * from crypto), which orders concurrent writes of one record inside the document; the
 * merge picks the same state either way, and a replay may differ by a repair message or two.
 *
 * Replicas reach it through the provider's own seam: `shareNamespace(memory, ns, { url:
 * link.url, token, WebSocketPolyfill: link.WebSocketPolyfill })`. Every socket they open is
 * one connection to a hub that speaks the relay's sync protocol (y-protocols over the
 * y-websocket framing): one document per room (the path of the URL), kept across
 * connections as the relay stores it; it sends its state vector on open, answers sync
 * steps, forwards each update and awareness message to the room's other connections. It
 * checks no token and enforces no limit: those are the relay's, tested against the real
 * relay (packages/relay/test, and the sync tests that start one).
 *
 * A connection's two directions are queues (ordered, as a websocket is); {@link deliverOne}
 * takes the head of one non-empty queue, chosen by the seed, and hands it over: the open
 * itself, a client's message to the hub, or the hub's message to a client.
 */
export class SeededLink {
  /** The address to share with (any path: the room comes from the provider's URL). */
  readonly url = 'ws://seeded-link.test';
  /** A WebSocket class whose sockets connect to this link (pass as `WebSocketPolyfill`). */
  readonly WebSocketPolyfill: new (url: string, protocols?: string | string[]) => LinkSocket;
  /** Messages handed over so far (opens included). */
  delivered = 0;

  readonly #random: () => number;
  readonly #sockets: LinkSocket[] = [];
  readonly #rooms = new Map<string, Y.Doc>();

  constructor(seed: number) {
    this.#random = mulberry32(seed);
    const link = this;
    this.WebSocketPolyfill = class extends LinkSocket {
      constructor(url: string) {
        super(url);
        link.#sockets.push(this);
      }
    };
  }

  /** Messages waiting, both directions, opens included. */
  get pending(): number {
    return this.#sockets.reduce((sum, socket) => sum + socket.waiting(), 0);
  }

  /**
   * Hands over one waiting message: the head of a queue the seed picks (each non-empty
   * direction of each connection equally likely); false when nothing waits.
   */
  deliverOne(): boolean {
    const ready = this.#sockets.flatMap((socket) => [
      ...(socket.waitingToHub() ? [() => this.#receive(socket, socket.takeToHub())] : []),
      ...(socket.waitingToClient() ? [() => socket.handOver(this)] : []),
    ]);
    if (ready.length === 0) return false;
    this.delivered++;
    ready[Math.floor(this.#random() * ready.length)]!();
    return true;
  }

  /** Hands over up to `count` waiting messages (fewer when fewer wait); returns how many. */
  deliver(count: number): number {
    let done = 0;
    while (done < count && this.deliverOne()) done++;
    return done;
  }

  /**
   * Hands over messages until none waits, those they cause included; throws after `limit`
   * (the peers would be answering each other for ever).
   */
  deliverAll(limit = 100_000): number {
    let done = 0;
    while (this.deliverOne()) {
      if (++done > limit) throw new Error(`the link still had messages after ${limit}: the peers answer each other for ever`);
    }
    return done;
  }

  /** The hub's document of `room` (what the relay would store), created on first use. */
  room(room: string): Y.Doc {
    let doc = this.#rooms.get(room);
    if (!doc) {
      doc = new Y.Doc({ gc: true });
      // Whatever reached the hub goes to every other connection of the room.
      doc.on('update', (update: Uint8Array, origin: unknown) => {
        const message = frame(MESSAGE_SYNC, (encoder) => syncProtocol.writeUpdate(encoder, update));
        for (const socket of this.#open(room)) if (socket !== origin) socket.toClient(message);
      });
      this.#rooms.set(room, doc);
    }
    return doc;
  }

  /** The hub's side of a message from `from`: sync steps and updates applied and answered, awareness forwarded. */
  #receive(from: LinkSocket, message: Uint8Array): void {
    const decoder = decoding.createDecoder(message);
    const type = decoding.readVarUint(decoder);
    if (type === MESSAGE_SYNC) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.readSyncMessage(decoder, encoder, this.room(from.room), from);
      if (encoding.length(encoder) > 1) from.toClient(encoding.toUint8Array(encoder));
    } else if (type === MESSAGE_AWARENESS) {
      for (const socket of this.#open(from.room)) if (socket !== from) socket.toClient(message);
    }
  }

  /** A connection just opened: the hub sends its state vector, so the client answers with what the hub lacks. */
  opened(socket: LinkSocket): void {
    socket.toClient(frame(MESSAGE_SYNC, (encoder) => syncProtocol.writeSyncStep1(encoder, this.room(socket.room))));
  }

  #open(room: string): LinkSocket[] {
    return this.#sockets.filter((socket) => socket.readyState === LinkSocket.OPEN && socket.room === room);
  }
}

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;

function frame(type: number, write: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  write(encoder);
  return encoding.toUint8Array(encoder);
}

/** One connection through a {@link SeededLink}, seen by the client as a browser WebSocket. */
export class LinkSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;
  readyState = LinkSocket.CONNECTING;
  binaryType = 'arraybuffer';
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: ArrayBuffer }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  /** The room: the URL's path, decoded. */
  readonly room: string;
  /** Client to hub, and hub to client; the open waits at the head of the second until delivered. */
  readonly #toHub: Uint8Array[] = [];
  readonly #toClient: Array<Uint8Array | 'open'> = ['open'];

  constructor(url: string) {
    this.room = decodeURIComponent(new URL(url).pathname.slice(1));
  }

  /** The client sends: queued for the hub while open, dropped otherwise (as a closed socket would). */
  send(data: Uint8Array): void {
    if (this.readyState === LinkSocket.OPEN) this.#toHub.push(new Uint8Array(data));
  }

  /**
   * The client closes: what it sent before still reaches the hub (a websocket sends its
   * buffered data before the close), nothing more reaches the client.
   */
  close(): void {
    this.readyState = LinkSocket.CLOSED;
    this.#toClient.length = 0;
  }

  /** @internal Messages waiting in both directions. */
  waiting(): number {
    return this.#toHub.length + this.#toClient.length;
  }

  /** @internal True when a message waits for the hub. */
  waitingToHub(): boolean {
    return this.#toHub.length > 0;
  }

  /** @internal True when a message (or the open) waits for the client. */
  waitingToClient(): boolean {
    return this.#toClient.length > 0;
  }

  /** @internal The next message for the hub. */
  takeToHub(): Uint8Array {
    return this.#toHub.shift()!;
  }

  /** @internal The hub queues a message for the client. */
  toClient(message: Uint8Array): void {
    if (this.readyState === LinkSocket.OPEN) this.#toClient.push(message);
  }

  /** @internal Hands the client the next message for it: the open (the hub then greets it), or a message. */
  handOver(link: SeededLink): void {
    const next = this.#toClient.shift()!;
    if (next === 'open') {
      this.readyState = LinkSocket.OPEN;
      link.opened(this);
      this.onopen?.({});
    } else {
      this.onmessage?.({ data: next.slice().buffer });
    }
  }
}
