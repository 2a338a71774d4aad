import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from '@zeromem/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryTool, type MemoryCommand } from '../src/index.ts';
import { testSeed } from '../../../test/kit/seed.ts';

// Random command sequences against a plain model of a file tree (a map of path -> text):
// after every command the tool succeeds exactly when the model does, lists the same
// files with the same sizes, and shows every file's text as the model holds it.

const seed = testSeed('memory tool vs a model file tree');

const root = mkdtempSync(join(tmpdir(), 'zeromem-memtool-prop-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ROOT = '/memories';
// Few paths, most of them files, so commands often meet what earlier ones made; directories and a path inside a file too.
const file = fc.constantFrom(`${ROOT}/x.md`, `${ROOT}/a/x.md`, `${ROOT}/a/b/y.md`);
const path = fc.oneof({ arbitrary: file, weight: 4 }, { arbitrary: fc.constantFrom(ROOT, `${ROOT}/a`, `${ROOT}/a/b`, `${ROOT}/b/y.md`, `${ROOT}/x.md/z`), weight: 1 });
const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta');
const text = fc.array(fc.array(word, { minLength: 0, maxLength: 3 }).map((words) => words.join(' ')), { minLength: 1, maxLength: 4 }).map((lines) => lines.join('\n'));
const command: fc.Arbitrary<MemoryCommand> = fc.oneof(
  fc.record({ command: fc.constant('view' as const), path }),
  fc.record({ command: fc.constant('create' as const), path, file_text: text }),
  fc.record({ command: fc.constant('str_replace' as const), path, old_str: fc.oneof(word, fc.constant('alpha beta'), fc.constant('')), new_str: fc.oneof(word, fc.constant(''), fc.constant('x\ny')) }),
  fc.record({ command: fc.constant('insert' as const), path, insert_line: fc.integer({ min: -1, max: 5 }), insert_text: fc.oneof(word, text, word.map((w) => `${w}\n`)) }),
  fc.record({ command: fc.constant('delete' as const), path }),
  fc.record({ command: fc.constant('rename' as const), old_path: path, new_path: path }),
);

/** The file tree the tool must behave as: paths to texts. */
class ModelTree {
  readonly files = new Map<string, string>();

  /** Runs a command; true when it succeeds. */
  apply(c: MemoryCommand): boolean {
    const files = this.files;
    const within = (p: string, dir: string) => dir === ROOT || p === dir || p.startsWith(`${dir}/`);
    const under = (dir: string) => [...files.keys()].filter((p) => p !== dir && within(p, dir));
    const ancestorIsFile = (p: string) => [...files.keys()].some((f) => p.startsWith(`${f}/`));
    switch (c.command) {
      case 'view':
        return c.path === ROOT || files.has(c.path) || under(c.path).length > 0;
      case 'create':
        if (c.path === ROOT || c.file_text.trim() === '' || [...files.keys()].some((f) => within(f, c.path)) || ancestorIsFile(c.path)) return false;
        files.set(c.path, c.file_text);
        return true;
      case 'str_replace': {
        const current = files.get(c.path);
        if (current === undefined || c.old_str === '') return false;
        let count = 0;
        for (let at = current.indexOf(c.old_str); at !== -1; at = current.indexOf(c.old_str, at + 1)) count++;
        const next = current.replace(c.old_str, () => c.new_str);
        if (count !== 1 || next.trim() === '') return false;
        files.set(c.path, next);
        return true;
      }
      case 'insert': {
        const current = files.get(c.path);
        if (current === undefined) return false;
        const lines = current.split('\n');
        if (c.insert_line < 0 || c.insert_line > lines.length) return false;
        lines.splice(c.insert_line, 0, c.insert_text.replace(/\n$/, ''));
        files.set(c.path, lines.join('\n'));
        return true;
      }
      case 'delete': {
        if (c.path === ROOT) return false;
        const gone = files.has(c.path) ? [c.path] : under(c.path);
        for (const p of gone) files.delete(p);
        return gone.length > 0;
      }
      case 'rename': {
        const { old_path: from, new_path: to } = c;
        if (from === ROOT || to === ROOT) return false;
        const sources = files.has(from) ? [from] : under(from);
        if (!sources.length || [...files.keys()].some((f) => within(f, to)) || within(to, from) || ancestorIsFile(to)) return false;
        const moved = sources.map((p) => [to + p.slice(from.length), files.get(p)!] as const);
        for (const p of sources) files.delete(p);
        for (const [p, t] of moved) files.set(p, t);
        return true;
      }
    }
  }
}

const SUCCESS = /^(File created successfully|The memory file has been edited|The file .* has been edited\.$|Successfully (deleted|renamed)|Here're the files|Here's the content)/;

describe("Claude's memory tool against a model file tree (seeded)", () => {
  it('same outcome, listing and contents after every command', { timeout: 300_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
        const memory = await openMemory({ name: `prop-${run++}`, directory: root });
        try {
          const tool = createMemoryTool(memory, { namespace: { userId: 'u' } });
          const model = new ModelTree();
          for (const c of commands) {
            const result = await tool.execute(c);
            expect(SUCCESS.test(result), `${JSON.stringify(c)} -> ${result}`).toBe(model.apply(c));
            const expected = [...model.files].map(([p, t]) => ({ path: p, bytes: Buffer.byteLength(t) })).sort((a, b) => (a.path < b.path ? -1 : 1));
            expect(await tool.files()).toEqual(expected);
          }
          for (const [p, t] of model.files) {
            const view = await tool.execute({ command: 'view', path: p });
            expect(view.split('\n').slice(1).map((line) => line.slice(line.indexOf('\t') + 1)).join('\n')).toBe(t);
          }
        } finally {
          await memory.close();
        }
      }),
      { seed, numRuns: 60 },
    );
  });
});

describe('any path a model sends (seeded)', () => {
  it('is refused with an error text or kept under a key that reads back as the same path', { timeout: 300_000 }, async () => {
    const memory = await openMemory({ name: 'paths', directory: root });
    try {
      const tool = createMemoryTool(memory, { namespace: { userId: 'u' } });
      const segment = fc.oneof(
        fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }),
        fc.constantFrom('..', '.', '%2e%2E', 'a\\b', 'Ä', '文件.md', '-2e', 'x.md', 'Notes'),
      );
      const anyPath = fc.oneof(
        fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => `${ROOT}/${segments.join('/')}`),
        fc.string({ unit: 'binary', maxLength: 30 }),
      );
      await fc.assert(
        fc.asyncProperty(anyPath, async (path) => {
          const created = await tool.execute({ command: 'create', path, file_text: 'text' });
          if (!created.startsWith('File created')) {
            expect(created).toMatch(/^Error: /);
            return;
          }
          // A new session reads the files from the store (the key decoded), not from what this one wrote.
          const reader = createMemoryTool(memory, { namespace: { userId: 'u' } });
          expect((await reader.files()).map((file) => file.path)).toEqual([path.length > ROOT.length + 1 ? path.replace(/\/$/, '') : path]);
          expect(await reader.execute({ command: 'view', path })).toMatch(/^Here's the content of .* with line numbers:\n {5}1\ttext$/);
          expect(await tool.execute({ command: 'delete', path })).toMatch(/^Successfully deleted/);
        }),
        { seed, numRuns: 300 },
      );
    } finally {
      await memory.close();
    }
  });
});
