/**
 * CPU time of the steps of one `remember` on the SQLite engine (durability 'relaxed', so no
 * fsync), each step on its own in one process, after a macrotask hop like an application's
 * writes (the hop's own cost is the first line: subtract it from the others):
 *
 *   node --conditions=development --import tsx test/bench/remember-steps.ts [dir]
 *
 * Beside test/bench/sqlite-floor.ts `commits` (SQLite alone for the same rows) it splits a
 * remember's CPU into SQLite's, the engine's (transaction, checks) and the verb's.
 */
import { rmSync } from 'node:fs';
import { openMemory } from '../../packages/core/src/index.node.ts';
import { openSqliteStore } from '../../packages/core/src/store/sqlite/sqlite-engine.ts';
import { validateRemember } from '../../packages/core/src/model/validate-remember.ts';
import { DEFAULT_LIMITS } from '../../packages/core/src/model/limits.ts';
import { contentHash } from '../../packages/core/src/model/content-hash.ts';
import { newRow } from '../../packages/core/src/verbs/remember.ts';
import { contentHashNow } from '../../packages/core/src/model/content-hash.ts';
import { readInputs } from '../../packages/core/src/model/read-input.ts';
import { datasetTexts } from './recall-data.ts';
const dir = process.argv[2] ?? '/tmp/zeromem-remember-steps'; rmSync(dir, { recursive: true, force: true });
const texts = datasetTexts(6000, 0x5eed, 0).texts;
const N = 2000;
async function cpu(name: string, f: (i: number) => unknown) {
  for (let i = 0; i < 200; i++) await f(i);
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) { await new Promise((r) => setImmediate(r)); await f(i + 200); }
  const c = process.cpuUsage(c0);
  console.log(name.padEnd(48), ((c.user + c.system) / N).toFixed(1), 'us CPU');
}
await cpu('setImmediate hop alone', () => undefined);
await cpu('readInputs', (i) => readInputs({ namespace: { userId: 'bench' }, content: texts[i] }));
await cpu('validateRemember', (i) => validateRemember({ namespace: { userId: 'bench' }, content: texts[i] }, DEFAULT_LIMITS, Date.now()));
await cpu('contentHash (with its macrotask)', (i) => contentHash(texts[i]!));
const store = await openSqliteStore(dir, 'steps', { durability: 'relaxed' });
await cpu('store.write of nothing (BEGIN..COMMIT, checks)', () => store.write(async () => undefined));
await cpu('store.write: a hash look-up', (i) => store.write((tx) => tx.recordsByContentHash([['u=bench', `h${i}`]])));
await cpu('store.write: look-up, record, audit row', (i) => {
  const checked = validateRemember({ namespace: { userId: 'bench' }, content: texts[i]! }, DEFAULT_LIMITS, Date.now());
  if (!checked.ok) throw new Error('bad');
  const row = newRow(checked.value, `01STEP${String(i).padStart(20, '0')}`, contentHashNow(texts[i]!)!);
  return store.write(async (tx) => {
    await tx.recordsByContentHash([[row.ns, row.contentHash]]);
    await tx.putRecords([row]);
    await tx.appendAudit([{ ns: row.ns, op: 'remember', id: row.id, namespace: row.namespace, at: Date.now(), actor: 'local' }]);
  });
});
store.close();
const memory = await openMemory({ name: 'mem', directory: dir, durability: 'relaxed' });
await cpu('memory.remember (relaxed)', (i) => memory.remember({ namespace: { userId: 'bench' }, content: texts[i + 3000]! }));
await memory.close();
