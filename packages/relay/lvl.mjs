import { ClassicLevel } from 'classic-level';
const mode = process.argv[2];
const db = new ClassicLevel('/tmp/lvltest', { keyEncoding: 'utf8', valueEncoding: 'view' });
await db.open();
if (mode === 'w') {
await db.put('a\x00001', new TextEncoder().encode('SECRET-XYZZY-123'), { sync: true });
await db.put('a\x00002', new TextEncoder().encode('other'), { sync: true });
await db.batch([{type:'del', key:'a\x00001'}], { sync: true });
}
await db.compactRange(process.argv[3] ?? 'a\x00', process.argv[4] ?? 'a\x01');
await db.compactRange(process.argv[3] ?? 'a\x00', process.argv[4] ?? 'a\x01');
await db.close();
