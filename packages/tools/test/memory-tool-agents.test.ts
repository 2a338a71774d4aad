import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openMemory } from '@zeromem/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryTool, type MemoryCommand } from '../src/index.ts';

// Two agents editing one file never lose an edit: the second to write, having read the
// version the first replaced, is told to view the file again (and then succeeds).

const alice = { userId: 'alice' };
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.stdin!.end();
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function storeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-memtool-agents-'));
  dirs.push(dir);
  return dir;
}

/** An agent: a Node process of its own with a memory tool on the store in `dir`. */
async function agentProcess(dir: string): Promise<(command: MemoryCommand) => Promise<string>> {
  const script = fileURLToPath(new URL('./memory-tool-process.ts', import.meta.url));
  const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', script, dir, alice.userId], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the agent process ended');
    return value as string;
  };
  expect(await next()).toBe('ready');
  return async (command) => {
    child.stdin!.write(`${JSON.stringify(command)}\n`);
    return JSON.parse(await next()) as string;
  };
}

const FILE = '/memories/plan.md';
const viewed = (text: string) => expect(text).toMatch(/^Here's the content of \/memories\/plan\.md/);

describe('two agents editing one file', { timeout: 120_000 }, () => {
  it('two sessions in one process: the stale edit is refused, nothing is lost', async () => {
    const dir = storeDir();
    const memory = await openMemory({ name: 'files', directory: dir });
    try {
      const [a, b] = [createMemoryTool(memory, { namespace: alice }), createMemoryTool(memory, { namespace: alice })];
      await a.execute({ command: 'create', path: FILE, file_text: 'milk\neggs' });
      viewed(await b.execute({ command: 'view', path: FILE }));
      expect(await a.execute({ command: 'str_replace', path: FILE, old_str: 'milk', new_str: 'oat milk' })).toMatch(/^The memory file has been edited/);
      expect(await b.execute({ command: 'insert', path: FILE, insert_line: 2, insert_text: 'bread' })).toMatch(/^Error: \/memories\/plan\.md was changed by another agent or device since you last viewed it/);
      expect(await b.execute({ command: 'delete', path: FILE })).toMatch(/was changed by another agent/);
      expect(await b.execute({ command: 'view', path: FILE })).toContain('oat milk');
      expect(await b.execute({ command: 'insert', path: FILE, insert_line: 2, insert_text: 'bread' })).toBe(`The file ${FILE} has been edited.`);
      expect((await a.history(FILE)).map((v) => v.text)).toEqual(['milk\neggs', 'oat milk\neggs', 'oat milk\neggs\nbread']);
    } finally {
      await memory.close();
    }
  });

  it('an in-place update of the file by another door (update_memory, the inspector) also makes a stale edit refused', async () => {
    const dir = storeDir();
    const memory = await openMemory({ name: 'files', directory: dir });
    try {
      const tool = createMemoryTool(memory, { namespace: alice });
      await tool.execute({ command: 'create', path: FILE, file_text: 'milk\neggs' });
      const [record] = (await memory.list(alice, { key: 'memories.plan-2emd' })).items;
      await memory.update(alice, record!.id, { content: 'milk\neggs\nbutter' });
      expect(await tool.execute({ command: 'insert', path: FILE, insert_line: 0, insert_text: 'bread' })).toMatch(/was changed by another agent or device since you last viewed it/);
      expect(await tool.execute({ command: 'view', path: FILE })).toContain('     3\tbutter');
      expect(await tool.execute({ command: 'insert', path: FILE, insert_line: 0, insert_text: 'bread' })).toBe(`The file ${FILE} has been edited.`);
    } finally {
      await memory.close();
    }
  });

  it('two processes on one store, editing at the same moment: one edit wins, the other is told to view, then both are in the file', async () => {
    const dir = storeDir();
    const [a, b] = await Promise.all([agentProcess(dir), agentProcess(dir)]);
    expect(await a({ command: 'create', path: FILE, file_text: 'milk\neggs' })).toBe(`File created successfully at: ${FILE}`);
    for (let round = 0; round < 5; round++) {
      viewed(await a({ command: 'view', path: FILE }));
      viewed(await b({ command: 'view', path: FILE }));
      // Both edit the version they viewed, at once.
      const results = await Promise.all([
        a({ command: 'insert', path: FILE, insert_line: 0, insert_text: `a${round}` }),
        b({ command: 'insert', path: FILE, insert_line: 0, insert_text: `b${round}` }),
      ]);
      const refused = results.filter((text) => text.includes('was changed by another agent or device since you last viewed it'));
      expect(results.filter((text) => text === `The file ${FILE} has been edited.`)).toHaveLength(1);
      expect(refused).toHaveLength(1);
      // The loser views again and redoes its edit.
      const loser = results[0] === refused[0] ? { agent: a, line: `a${round}` } : { agent: b, line: `b${round}` };
      viewed(await loser.agent({ command: 'view', path: FILE }));
      expect(await loser.agent({ command: 'insert', path: FILE, insert_line: 0, insert_text: loser.line })).toBe(`The file ${FILE} has been edited.`);
    }
    const text = await a({ command: 'view', path: FILE });
    for (let round = 0; round < 5; round++) for (const who of ['a', 'b']) expect(text).toContain(`\t${who}${round}\n`);
  });
});
