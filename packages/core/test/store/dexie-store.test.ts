import { IDBKeyRange } from 'fake-indexeddb';
import { openDexieStore } from '../../src/store/dexie-store.ts';
import { freshIndexedDB } from '../helpers.ts';
import { describeStoragePort } from './storage-port-contract.ts';

// fake-indexeddb in memory, or the Node store on disk in the suite's second run (helpers.ts).
describeStoragePort('Dexie', () => openDexieStore('port-contract', { ...freshIndexedDB(), IDBKeyRange, durability: 'relaxed' }));
