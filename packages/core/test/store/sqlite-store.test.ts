import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-engine.ts';
import { describeStoragePort } from './storage-port-contract.ts';

// The port's contract on Node's SQLite engine: each store a file of its own (its rows carry made-up content hashes).
const root = mkdtempSync(join(tmpdir(), 'zeromem-sqlite-contract-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let stores = 0;
describeStoragePort('SQLite', () => openSqliteStore(root, `contract-${stores++}`, { durability: 'relaxed', checkContentHashes: false }));
