/**
 * The numbers the READMEs state, against what the code reports now: how many memory tools
 * there are ("the ten tools", "for all ten"), how many tokens their definitions cost a
 * client (the MCP server's `tools/list`, the tools the AI SDK sends a model), and the
 * bundled models' sizes (their folders in @zeromem/embed-transformers). A README that
 * names one of these gets it checked; a number that drifted fails with where it is.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { memoryTools } from '@zeromem/ai';
import { openMemory, type Memory, type Tokenizer } from '@zeromem/core';
import { createMemoryServer } from '@zeromem/mcp';
import { MEMORY_TOOLS } from '@zeromem/tools';
import { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readmes = [join(root, 'README.md'), ...readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name, 'README.md'))]
  .filter((file) => existsSync(file))
  .map((file) => ({ name: relative(root, file), text: readFileSync(file, 'utf8') }));

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen'];
const TOOL_COUNT = Object.keys(MEMORY_TOOLS).length;

/** Where in a README a statement is: file and line. */
function at(name: string, text: string, index: number): string {
  return `${name}:${text.slice(0, index).split('\n').length}`;
}

/** Every match of `pattern` in every README (text joined across line breaks), with where it is. */
function statements(pattern: RegExp): Array<{ where: string; match: RegExpExecArray }> {
  return readmes.flatMap(({ name, text }) => [...text.matchAll(pattern)].map((match) => ({ where: at(name, text, match.index), match: match as RegExpExecArray })));
}

/** A folder's size in bytes (its files, recursively). */
/** Files embed-transformers' package.json leaves out of the published package (`"!path"` in `files`): a checkout has them, users do not. */
const unpublished = new Set(
  (JSON.parse(readFileSync(join(root, 'packages', 'embed-transformers', 'package.json'), 'utf8')) as { files: string[] }).files
    .filter((entry) => entry.startsWith('!'))
    .map((entry) => join(root, 'packages', 'embed-transformers', entry.slice(1))),
);

/** Bytes of a model folder as the published package holds it. */
function folderBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, entry) => {
    const path = join(dir, entry);
    if (unpublished.has(path)) return sum;
    const stat = statSync(path);
    return sum + (stat.isDirectory() ? folderBytes(path) : stat.size);
  }, 0);
}

let home: string;
let memory: Memory;
let tokenizer: Tokenizer;
/** Tokens (o200k_base) of the tool definitions, as each door hands them to a client or a model. */
const definitionTokens: Record<'mcp' | 'ai', number> = { mcp: 0, ai: 0 };

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'zeromem-readme-numbers-'));
  memory = await openMemory({ name: 'readme-numbers', directory: home });
  tokenizer = await memory.tokenizer();
  const namespace = { userId: 'alice' };

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMemoryServer({ memory, namespace }).connect(serverSide);
  const client = new Client({ name: 'readme-numbers', version: '1.0.0' });
  await client.connect(clientSide);
  definitionTokens.mcp = tokenizer.count(JSON.stringify((await client.listTools()).tools));
  await client.close();

  const model = new MockLanguageModelV4({
    doGenerate: async () => ({ content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }, warnings: [] }),
  });
  await generateText({ model, tools: memoryTools({ memory, namespace }), prompt: 'hi' });
  definitionTokens.ai = tokenizer.count(JSON.stringify(model.doGenerateCalls[0]!.tools));
});

afterAll(async () => {
  await memory?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("the READMEs' numbers are the code's", () => {
  it(`tool counts: every "the N tools" / "all N" is the catalog's ${TOOL_COUNT}`, () => {
    const found = statements(/\b(?:the|all)\s+(\w+)(?:\s+memory)?\s+tools\b|\bfor\s+all\s+(\w+)\b/gi).filter(({ match }) => WORDS.includes((match[1] ?? match[2])!.toLowerCase()));
    expect(found.length).toBeGreaterThanOrEqual(3);
    expect(found.filter(({ match }) => WORDS.indexOf((match[1] ?? match[2])!.toLowerCase()) !== TOOL_COUNT).map(({ where, match }) => `${where}: "${match[0]}"`)).toEqual([]);
  });

  it('tool-definition tokens: each door README says about what its tools cost (within 5%)', () => {
    const doors = { 'packages/mcp/README.md': definitionTokens.mcp, 'packages/ai/README.md': definitionTokens.ai } as const;
    for (const [name, actual] of Object.entries(doors)) {
      const { text } = readmes.find((readme) => readme.name === name)!;
      const stated = /about\s+([\d,]+)\s+tokens[^.]*?\bfor\s+all\b/.exec(text);
      expect(stated, `${name} states what the tool definitions cost`).not.toBeNull();
      const claimed = Number(stated![1]!.replaceAll(',', ''));
      expect(Math.abs(claimed - actual) / actual, `${at(name, text, stated!.index)} says about ${claimed} tokens; the definitions are ${actual} tokens (o200k_base)`).toBeLessThanOrEqual(0.05);
    }
  });

  it("model sizes: each bundled model's size in MB, as the READMEs state it, is its folder's", () => {
    const models = join(root, 'packages', 'embed-transformers', 'models');
    const sizes = new Map(readdirSync(models).map((name) => [name, folderBytes(join(models, name)) / 1e6]));
    const names = [...sizes.keys()].map((name) => name.replaceAll('.', '\\.')).join('|');
    // A size said in the same breath as the model's name: "`zeromem-static-en` (English, 128-d static, 7.4 MB)".
    const found = statements(new RegExp(`\`?(${names})\`?[^.;\\n]{0,60}?\\b(\\d+(?:\\.\\d+)?) MB`, 'g'));
    expect(found.length).toBeGreaterThanOrEqual(4);
    const wrong = found.filter(({ match }) => {
      const claimed = match[2]!;
      const decimals = claimed.split('.')[1]?.length ?? 0;
      return sizes.get(match[1]!)!.toFixed(decimals) !== Number(claimed).toFixed(decimals);
    });
    expect(wrong.map(({ where, match }) => `${where}: "${match[0]}" (the folder is ${sizes.get(match[1]!)!.toFixed(2)} MB)`)).toEqual([]);
  });
});
