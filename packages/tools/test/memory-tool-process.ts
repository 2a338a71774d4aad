// A process running Claude's memory tool on a store directory (argv[2]) for namespace
// { userId: argv[3] }: one command a line on stdin (JSON), one result a line on stdout
// (JSON string). The memory-tool concurrency test starts two of these on one store.
import { createInterface } from 'node:readline';
import { openMemory } from '@zeromem/core';
import { createMemoryTool } from '../src/index.ts';

const [directory, userId] = process.argv.slice(2);
const memory = await openMemory({ name: 'files', directory: directory! });
const tool = createMemoryTool(memory, { namespace: { userId: userId! } });
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${JSON.stringify(await tool.execute(JSON.parse(line)))}\n`);
}
await memory.close();
