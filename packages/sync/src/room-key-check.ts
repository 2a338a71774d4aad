import { ZeromemError } from '@zeromem/core';
import type * as Y from 'yjs';
import type { RecordCodec } from './record-codec.ts';

/**
 * The key-check marker of an encrypted room (Y.Map `meta`, key `keyCheck`): nothing is read
 * or written with a wrong key, a plain replica does not join an encrypted room, and a key
 * holder does not encrypt a room that is already shared in clear. The first key holder to
 * write sets the marker.
 */
export class RoomKeyCheck {
  readonly #doc: Y.Doc;
  readonly #meta: Y.Map<unknown>;
  readonly #records: Y.Map<unknown>;
  readonly #codec: RecordCodec;
  readonly #room: string;
  readonly #readOnly: boolean;
  readonly #origin: unknown;
  #ready = false;

  /** @param origin the transaction origin of this replica's own document changes */
  constructor(doc: Y.Doc, records: Y.Map<unknown>, codec: RecordCodec, room: string, readOnly: boolean, origin: unknown) {
    this.#doc = doc;
    this.#meta = doc.getMap('meta');
    this.#records = records;
    this.#codec = codec;
    this.#room = room;
    this.#readOnly = readOnly;
    this.#origin = origin;
  }

  /** Calls `onChange` when the marker changes (a concurrent first writer may have won): the key is checked again. */
  watch(onChange: () => void): void {
    this.#meta.observe(() => {
      this.#ready = false;
      onChange();
    });
  }

  /**
   * `true` when records may be read and written, `false` to wait (the relay's state has
   * not arrived, so the room may already have a key), or the error the share fails with.
   */
  async check(relaySynced: boolean): Promise<boolean | ZeromemError> {
    const marker = this.#meta.get('keyCheck');
    if (!this.#codec.encrypted) {
      if (marker === undefined) return true;
      return new ZeromemError('DECRYPTION_FAILED', `Namespace ${this.#room} is shared encrypted: pass its encryptionKey to shareNamespace().`);
    }
    if (this.#ready) return true;
    if (marker !== undefined) {
      try {
        await this.#codec.verify(marker);
      } catch {
        return new ZeromemError('DECRYPTION_FAILED', `The encryptionKey is not the key of namespace ${this.#room}: nothing was read or written. Use the key the namespace was shared with.`);
      }
      this.#ready = true;
      return true;
    }
    if (!relaySynced) return false;
    if (this.#records.size > 0) {
      return new ZeromemError('DECRYPTION_FAILED', `Namespace ${this.#room} is shared without encryption: share it without encryptionKey, or under another namespace.`);
    }
    if (!this.#readOnly) {
      const check = await this.#codec.keyCheck();
      this.#doc.transact(() => this.#meta.set('keyCheck', check), this.#origin);
    }
    this.#ready = true;
    return true;
  }
}
