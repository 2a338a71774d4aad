import { IDBKeyRange } from 'fake-indexeddb';
import { openDexieStore } from '../../src/store/dexie-store.ts';
import { freshIndexedDB } from '../helpers.ts';
import { describeStoragePort } from './storage-port-contract.ts';

// The Dexie engine on fake-indexeddb in memory (the SQLite engine's run is sqlite-store.test.ts).
describeStoragePort('Dexie', () => openDexieStore('port-contract', { ...freshIndexedDB(), IDBKeyRange, durability: 'relaxed' }));
