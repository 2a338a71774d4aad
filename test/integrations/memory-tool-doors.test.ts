/**
 * What Claude's memory files give the rest of zeromem (issue 31 item 3): a file is a
 * memory of the bound namespace, so recall finds its text, the MCP tools and the REST
 * service answer with it, buildContext puts it in a context, redaction masks it before it
 * is stored, and forgetUser takes every version of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory, type Memory } from '@zeromem/core';
import { startService } from '@zeromem/server';
import { MEMORY_TOOLS, bindMemory, createMemoryTool, type ClaudeMemoryTool } from '@zeromem/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const alice = { userId: 'alice', scope: 'claude' };
const FILE = '/memories/health/dentist.md';
const TEXT = "Alice's dentist is Dr. Moreau in Lyon.\nAppointments on Tuesday mornings.";
let dir: string;
let memory: Memory;
let tool: ClaudeMemoryTool;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zeromem-memtool-doors-'));
  memory = await openMemory({ name: 'doors', directory: dir, redaction: {} });
  tool = createMemoryTool(memory, { namespace: alice });
  expect(await tool.execute({ command: 'create', path: FILE, file_text: TEXT })).toBe(`File created successfully at: ${FILE}`);
  await memory.remember({ namespace: alice, content: 'Alice plays the cello on weekends.' });
});
afterEach(async () => {
  await memory.close();
  rmSync(dir, { recursive: true, force: true });
});

const contents = (hits: Array<{ record: { content: string } }>) => hits.map((hit) => hit.record.content);

describe("Claude's memory files through zeromem's other doors", () => {
  it('recall finds a file by its text, with its path; after an edit the new text, never the old; after a delete nothing', async () => {
    const { hits } = await memory.recall(alice, 'who is the dentist');
    expect(hits[0]!.record).toMatchObject({ content: TEXT, metadata: { path: FILE } });
    await tool.execute({ command: 'str_replace', path: FILE, old_str: 'Dr. Moreau', new_str: 'Dr. Petit' });
    const after = contents((await memory.recall(alice, 'who is the dentist')).hits);
    expect(after).toContain(TEXT.replace('Dr. Moreau', 'Dr. Petit'));
    expect(after).not.toContain(TEXT);
    await tool.execute({ command: 'delete', path: FILE });
    expect(contents((await memory.recall(alice, 'dentist appointments')).hits).some((text) => text.includes('dentist'))).toBe(false);
  });

  it('the MCP search_memories tool and the REST service find the file; buildContext holds it', async () => {
    const mcp = await MEMORY_TOOLS.search_memories.run(bindMemory({ memory, namespace: alice }, 'test'), { query: 'dentist in Lyon' });
    expect(mcp.results[0]).toMatchObject({ content: TEXT, metadata: { path: FILE } });
    const service = await startService(memory, { token: 'service-token-0123456789', port: 0 });
    try {
      const response = await fetch(`${service.url}/v1/recall`, {
        method: 'POST',
        headers: { authorization: 'Bearer service-token-0123456789', 'content-type': 'application/json' },
        body: JSON.stringify({ namespace: alice, query: 'dentist in Lyon' }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { hits: Array<{ record: { content: string } }> }).hits[0]!.record.content).toBe(TEXT);
    } finally {
      await service.close();
    }
    const { text } = await memory.buildContext({ namespace: alice, query: 'when can Alice see the dentist', budget: 500 });
    expect(text).toContain('Appointments on Tuesday mornings.');
  });

  it('redaction masks what the model writes into a file before it is stored', async () => {
    expect(await tool.execute({ command: 'insert', path: FILE, insert_line: 2, insert_text: 'Reach the practice at desk@moreau-dental.example.com' })).toBe(`The file ${FILE} has been edited.`);
    const view = await tool.execute({ command: 'view', path: FILE });
    expect(view).toContain('     3\tReach the practice at [email]');
    expect(view).not.toContain('desk@');
    expect(JSON.stringify(await tool.history(FILE))).not.toContain('desk@');
  });

  it('forgetUser takes every file with every version; the tool then shows an empty /memories', async () => {
    await tool.execute({ command: 'str_replace', path: FILE, old_str: 'Tuesday', new_str: 'Thursday' });
    await tool.execute({ command: 'rename', old_path: FILE, new_path: '/memories/dentist.md' });
    expect(await memory.count(alice, { includeClosed: true })).toBeGreaterThan(3);
    expect(await memory.forgetUser('alice')).toBeGreaterThan(3);
    expect(await memory.count(alice, { includeClosed: true })).toBe(0);
    expect(await tool.history(FILE)).toEqual([]);
    expect(await tool.history('/memories/dentist.md')).toEqual([]);
    expect(await tool.execute({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
  });
});
