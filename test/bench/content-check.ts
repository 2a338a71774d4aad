/**
 * What checking a record read against its content hash costs beside decoding the row
 * (store/sqlite/sqlite-transactions.ts checkedRecordOf): 20,000 rows as the SQLite engine reads
 * them, decode and hash alternating, 7 rounds, medians.
 *
 *   node --import tsx test/bench/content-check.ts
 */
import { contentHashNow } from '../../packages/core/src/model/content-hash.ts';
import { recordColumns, recordOf } from '../../packages/core/src/store/sqlite/sqlite-rows.ts';
import { toRow } from '../../packages/core/src/store/row.ts';
const rows = Array.from({ length: 20000 }, (_, i) => {
  const content = `Memory number ${i} with some words to fill pages: ${'lorem ipsum '.repeat(8)}`;
  return recordColumns(toRow({ id: `id${i}`, namespace: { userId: 'u1' }, namespaceKey: 'u=u1', content, source: 'user', layer: 'long_term', tags: ['a', 'b'], metadata: { i }, importance: 0.5, createdAt: i, updatedAt: i, expiresAt: null, accessCount: 0, lastAccessedAt: null, contentHash: contentHashNow(content)!, version: 1, tier: 'hot', mergedFrom: [], key: null, validFrom: null, validUntil: null, closedBy: null, statedUntil: null } as never));
});
const decode: number[] = [], hash: number[] = [];
for (let round = 0; round < 7; round++) {
  let t = process.hrtime.bigint();
  for (const r of rows) recordOf(r);
  decode.push(Number(process.hrtime.bigint() - t) / 1000 / rows.length);
  t = process.hrtime.bigint();
  for (const r of rows) contentHashNow(r[12]);
  hash.push(Number(process.hrtime.bigint() - t) / 1000 / rows.length);
}
const med = (a: number[]): number => a.sort((x, y) => x - y)[a.length >> 1]!;
console.log('median µs per record: decode', med(decode).toFixed(2), 'hash', med(hash).toFixed(2), 'ratio', (med(hash) / med(decode)).toFixed(2));
