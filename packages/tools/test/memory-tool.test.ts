import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory, type Memory } from '@zeromem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryTool, type ClaudeMemoryTool } from '../src/index.ts';

let dir: string;
let memory: Memory;
let tool: ClaudeMemoryTool;
const alice = { userId: 'alice' };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zeromem-memtool-'));
  memory = await openMemory({ name: 'files', directory: dir });
  tool = createMemoryTool(memory, { namespace: alice });
});
afterEach(async () => {
  await memory.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (command: Parameters<ClaudeMemoryTool['execute']>[0], on = tool) => on.execute(command);

describe("Claude's memory tool: each command as Anthropic documents it", () => {
  it('view of an empty /memories lists only itself', async () => {
    expect(await run({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
  });

  it('create, then view the directory (sizes, two levels, hidden items left out) and the file with numbered lines', async () => {
    expect(await run({ command: 'create', path: '/memories/notes.md', file_text: 'Alice prefers tea.\nShe lives in Lyon.' })).toBe('File created successfully at: /memories/notes.md');
    await run({ command: 'create', path: '/memories/projects/zeromem/plan.md', file_text: 'x'.repeat(1536) });
    await run({ command: 'create', path: '/memories/projects/todo.md', file_text: 'ship it' });
    await run({ command: 'create', path: '/memories/.hidden', file_text: 'secret' });
    expect(await run({ command: 'view', path: '/memories' })).toBe(
      [
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
        '1.6K\t/memories',
        '37B\t/memories/notes.md',
        '1.6K\t/memories/projects/',
        '7B\t/memories/projects/todo.md',
        '1.5K\t/memories/projects/zeromem/',
      ].join('\n'),
    );
    expect(await run({ command: 'view', path: '/memories/notes.md' })).toBe("Here's the content of /memories/notes.md with line numbers:\n     1\tAlice prefers tea.\n     2\tShe lives in Lyon.");
    expect(await run({ command: 'view', path: '/memories/notes.md', view_range: [2, -1] })).toBe("Here's the content of /memories/notes.md with line numbers:\n     2\tShe lives in Lyon.");
    expect(await run({ command: 'view', path: '/memories/notes.md', view_range: [2, 3] })).toMatch(/^Error: Invalid view_range \[2, 3\]: .* has 2 lines/);
    expect(await run({ command: 'view', path: '/memories/missing.md' })).toBe('The path /memories/missing.md does not exist. Please provide a valid path.');
    expect(await run({ command: 'create', path: '/memories/notes.md', file_text: 'again' })).toBe('Error: File /memories/notes.md already exists');
  });

  it('str_replace: not found, found in several lines, replaced once with a numbered snippet', async () => {
    await run({ command: 'create', path: '/memories/a.md', file_text: 'one\ntwo\nthree\ntwo\nfive\nsix' });
    expect(await run({ command: 'str_replace', path: '/memories/a.md', old_str: 'four', new_str: '4' })).toBe('No replacement was performed, old_str `four` did not appear verbatim in /memories/a.md.');
    expect(await run({ command: 'str_replace', path: '/memories/a.md', old_str: 'two', new_str: '2' })).toBe(
      'No replacement was performed. Multiple occurrences of old_str `two` in lines: 2, 4. Please ensure it is unique',
    );
    expect(await run({ command: 'str_replace', path: '/memories/a.md', old_str: 'three', new_str: '3' })).toBe(
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tone\n     2\ttwo\n     3\t3\n     4\ttwo\n     5\tfive',
    );
    expect(await run({ command: 'str_replace', path: '/memories/b.md', old_str: 'x', new_str: 'y' })).toBe('Error: The path /memories/b.md does not exist. Please provide a valid path.');
  });

  it('insert: at the top, at the end, and out of range', async () => {
    await run({ command: 'create', path: '/memories/a.md', file_text: 'one\ntwo' });
    expect(await run({ command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'zero\n' })).toBe('The file /memories/a.md has been edited.');
    expect(await run({ command: 'insert', path: '/memories/a.md', insert_line: 3, insert_text: 'three' })).toBe('The file /memories/a.md has been edited.');
    expect(await run({ command: 'insert', path: '/memories/a.md', insert_line: 5, insert_text: 'x' })).toBe(
      'Error: Invalid `insert_line` parameter: 5. It should be within the range of lines of the file: [0, 4]',
    );
    expect(await run({ command: 'insert', path: '/memories/nope.md', insert_line: 0, insert_text: 'x' })).toBe('Error: The file /memories/nope.md does not exist');
    expect(await run({ command: 'view', path: '/memories/a.md' })).toBe("Here's the content of /memories/a.md with line numbers:\n     1\tzero\n     2\tone\n     3\ttwo\n     4\tthree");
  });

  it('delete a file and a directory; rename a file, a directory, and onto an existing path', async () => {
    await run({ command: 'create', path: '/memories/a.md', file_text: 'A' });
    await run({ command: 'create', path: '/memories/dir/b.md', file_text: 'B' });
    await run({ command: 'create', path: '/memories/dir/sub/c.md', file_text: 'C' });
    expect(await run({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/dir/b.md' })).toBe('Error: The destination /memories/dir/b.md already exists');
    expect(await run({ command: 'rename', old_path: '/memories/zzz.md', new_path: '/memories/y.md' })).toBe('Error: The path /memories/zzz.md does not exist');
    expect(await run({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/archive/a.md' })).toBe('Successfully renamed /memories/a.md to /memories/archive/a.md');
    expect(await run({ command: 'rename', old_path: '/memories/dir', new_path: '/memories/moved' })).toBe('Successfully renamed /memories/dir to /memories/moved');
    expect((await tool.files()).map((f) => f.path)).toEqual(['/memories/archive/a.md', '/memories/moved/b.md', '/memories/moved/sub/c.md']);
    expect(await run({ command: 'view', path: '/memories/moved/sub/c.md' })).toContain('     1\tC');
    expect(await run({ command: 'delete', path: '/memories/moved' })).toBe('Successfully deleted /memories/moved');
    expect(await run({ command: 'delete', path: '/memories/archive/a.md' })).toBe('Successfully deleted /memories/archive/a.md');
    expect(await run({ command: 'delete', path: '/memories/archive/a.md' })).toBe('Error: The path /memories/archive/a.md does not exist');
    expect(await tool.files()).toEqual([]);
    expect(await run({ command: 'delete', path: '/memories' })).toBe('Error: Cannot delete the /memories directory itself');
  });

  it('refuses paths outside /memories or with .. and writes nothing', async () => {
    for (const path of ['/etc/passwd', '/memoriesX/a', 'memories/a', '/memories/../etc', '/memories/a/../../x', '/memories/%2e%2e/x', '/memories/a\\..\\b', '/memories//a']) {
      expect(await run({ command: 'create', path, file_text: 'x' })).toMatch(/^Error: The path .* (is outside \/memories|is not allowed)/);
    }
    expect(await run({ command: 'view', path: '/memories' })).toContain('0B\t/memories');
    expect(await memory.count(alice, { includeClosed: true })).toBe(0);
  });

  it('an invalid command is told what to send; the namespace cannot be chosen by the model', async () => {
    expect(await run({ command: 'create', path: '/memories/a.md', file_text: 'x', namespace: { userId: 'bob' } } as never)).toMatch(/^Error: Invalid memory tool input \(namespace: is not an input/);
    expect(await run({ command: 'chmod', path: '/memories/a.md' } as never)).toMatch(/^Error: Invalid memory tool input/);
    expect(await memory.count({ userId: 'bob' }, { includeClosed: true })).toBe(0);
  });

  it('store limits come back as errors the model can act on', async () => {
    const small = await openMemory({ name: 'small', directory: dir, limits: { maxContentBytes: 64, maxRecordsPerNamespace: 3 } });
    try {
      const files = createMemoryTool(small, { namespace: alice });
      expect(await files.execute({ command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(65) })).toMatch(/^Error: The memory store refused \/memories\/big\.md: the file text must be at most 64 bytes .*Nothing was written\.$/);
      expect(await files.execute({ command: 'create', path: `/memories/${'A'.repeat(60)}.md`, file_text: 'x' })).toMatch(/^Error: The path .* is too long for the memory store/);
      for (const name of ['a', 'b', 'c']) expect(await files.execute({ command: 'create', path: `/memories/${name}.md`, file_text: name })).toMatch(/^File created/);
      expect(await files.execute({ command: 'create', path: '/memories/d.md', file_text: 'd' })).toMatch(/^Error: The memory store is full .*delete files you no longer need/);
      expect(await files.execute({ command: 'delete', path: '/memories/a.md' })).toBe('Successfully deleted /memories/a.md');
      expect(await files.execute({ command: 'create', path: '/memories/d.md', file_text: 'd' })).toBe('File created successfully at: /memories/d.md');
    } finally {
      await small.close();
    }
  });

  it('empty files are refused with what to do instead', async () => {
    expect(await run({ command: 'create', path: '/memories/e.md', file_text: '' })).toMatch(/^Error: This file_text would leave \/memories\/e\.md empty/);
    await run({ command: 'create', path: '/memories/e.md', file_text: 'only' });
    expect(await run({ command: 'str_replace', path: '/memories/e.md', old_str: 'only', new_str: '' })).toMatch(/^Error: This replacement would leave .* delete the file/);
  });
});

describe('listings follow every writer', () => {
  it("a listing shows another session's creates, renames and deletes, a forget, and no unkeyed memory", async () => {
    const other = createMemoryTool(memory, { namespace: alice });
    const paths = async () => (await tool.files()).map((f) => f.path);
    expect(await paths()).toEqual([]);
    await other.execute({ command: 'create', path: '/memories/a.md', file_text: 'A' });
    await memory.remember({ namespace: alice, content: 'not a file' });
    expect(await paths()).toEqual(['/memories/a.md']);
    await other.execute({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' });
    expect(await run({ command: 'view', path: '/memories' })).toContain('1B\t/memories/b.md');
    await tool.execute({ command: 'create', path: '/memories/c.md', file_text: 'C' });
    await other.execute({ command: 'delete', path: '/memories/b.md' });
    expect(await paths()).toEqual(['/memories/c.md']);
    await memory.forgetWhere(alice, { metadata: { path: '/memories/c.md' } });
    expect(await paths()).toEqual([]);
  });
});

describe('files are versioned memories', () => {
  it('every edit is a version; delete and rename keep history; asOf reads the directory as it was', async () => {
    await run({ command: 'create', path: '/memories/a.md', file_text: 'v1' });
    const afterCreate = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await run({ command: 'str_replace', path: '/memories/a.md', old_str: 'v1', new_str: 'v2' });
    await run({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' });
    await run({ command: 'delete', path: '/memories/b.md' });
    expect((await tool.history('/memories/a.md')).map((v) => [v.text, v.ended ?? null, v.renamedTo ?? null])).toEqual([
      ['v1', null, null],
      ['v2', 'rename', '/memories/b.md'],
    ]);
    expect((await tool.history('/memories/b.md')).map((v) => [v.text, v.ended ?? null])).toEqual([['v2', 'delete']]);
    expect(await tool.files()).toEqual([]);
    expect(await tool.files({ asOf: afterCreate })).toEqual([{ path: '/memories/a.md', bytes: 2 }]);
    expect(await run({ command: 'create', path: '/memories/b.md', file_text: 'back' })).toBe('File created successfully at: /memories/b.md');
    expect((await tool.history('/memories/b.md')).map((v) => v.text)).toEqual(['v2', 'back']);
  });
});
