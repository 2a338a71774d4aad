import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { countChatTokens, createTokenizer, type ChatMessage, type Memory, type Tokenizer } from '../src/index.ts';
import { openTestMemory } from './helpers.ts';

/**
 * The zero-token proof: a 100-turn agent loop. The only LLM is the fake client below,
 * which counts its calls and prompt tokens. Memory operations (store a turn, build the
 * context, end the session) never call it and never reach the network; each prompt
 * built from the context stays within the budget, while the prompt that resends the
 * full history grows every turn.
 */

/** A stand-in LLM server: answers with a short reply, counts calls and prompt tokens. */
class FakeLlm {
  calls = 0;
  promptTokens: number[] = [];
  constructor(private readonly tokenizer: Tokenizer) {}
  async complete(messages: ChatMessage[]): Promise<string> {
    this.calls++;
    this.promptTokens.push(countChatTokens(this.tokenizer, messages));
    const last = messages.at(-1)?.content ?? '';
    return `Noted: ${last.slice(0, 40)}`;
  }
}

let network = 0;
beforeEach(() => {
  network = 0;
  vi.stubGlobal('fetch', () => {
    network++;
    throw new Error('network access');
  });
});
afterEach(() => vi.unstubAllGlobals());

/** Runs a memory operation and checks it left the LLM alone. */
async function memoryOp<T>(llm: FakeLlm, op: () => Promise<T>): Promise<T> {
  const before = llm.calls;
  const result = await op();
  expect(llm.calls).toBe(before);
  return result;
}

it('100 turns: memory makes no LLM call, each prompt stays within the budget, the full-history prompt grows every turn', async () => {
  const BUDGET = 600;
  const SYSTEM = 'You are the after-sales agent of a phone shop. Be brief.';
  const tokenizer = await createTokenizer();
  const llm = new FakeLlm(tokenizer);
  const { memory, clock } = await openTestMemory();
  const ns = { userId: 'user-1042', agentId: 'after-sales' };
  await seedLongTerm(memory, ns);
  const session = memory.session({ namespace: ns, id: 'call-1', context: { budget: BUDGET, system: SYSTEM } });

  const history: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
  const fullHistoryPrompt: number[] = [];
  const contextPrompt: number[] = [];
  for (let turn = 1; turn <= 100; turn++) {
    clock.advance(30_000);
    const said = USER_LINES[turn % USER_LINES.length]!.replace('#', String(turn));
    await memoryOp(llm, () => session.addTurn('user', said, { durable: turn % 25 === 0 }));
    history.push({ role: 'user', content: said });
    const { messages, report } = await memoryOp(llm, () => session.context());
    expect(report.tokens).toBeLessThanOrEqual(BUDGET);
    const reply = await llm.complete(messages);
    contextPrompt.push(llm.promptTokens.at(-1)!);
    fullHistoryPrompt.push(countChatTokens(tokenizer, history));
    expect(report.fullHistoryTokens).toBeGreaterThan(0);
    clock.advance(5_000);
    await memoryOp(llm, () => session.addTurn('assistant', reply));
    history.push({ role: 'assistant', content: reply });
  }
  const ended = await memoryOp(llm, () => session.end());
  await memory.close();

  expect(llm.calls).toBe(100); // exactly the agent's own calls, one per turn
  expect(network).toBe(0);
  expect(ended.llm.calls).toBe(0);
  expect(ended.promoted).toHaveLength(4);
  expect(Math.max(...contextPrompt)).toBeLessThanOrEqual(BUDGET);
  for (let i = 1; i < fullHistoryPrompt.length; i++) expect(fullHistoryPrompt[i]).toBeGreaterThan(fullHistoryPrompt[i - 1]!);
  expect(fullHistoryPrompt.at(-1)!).toBeGreaterThan(5 * BUDGET);
  // Once the history outgrows the budget, the context stays flat while the history keeps
  // growing: every later prompt fills the budget to within one turn (the next older turn
  // is what did not fit), so it neither grows past the budget nor shrinks or drifts.
  const oneTurn = Math.max(...history.slice(1).map((message) => countChatTokens(tokenizer, [message])));
  expect(oneTurn).toBeLessThan(BUDGET / 10); // control: a turn is small next to the budget
  for (const tokens of contextPrompt.slice(50)) {
    expect(tokens).toBeLessThanOrEqual(BUDGET);
    expect(tokens).toBeGreaterThan(BUDGET - oneTurn);
  }
}, 120_000); // 300 memory operations and 100 contexts; the shared machine can be slow

const USER_LINES = [
  'Turn #: my phone still does not charge when the cable is plugged in',
  'Turn #: I tried another cable and another charger, same problem',
  'Turn #: can you check whether the warranty covers the charging port?',
  'Turn #: please call me instead of sending e-mails',
  'Turn #: what is the status of work order TS20240315?',
  'Turn #: I can bring the phone to the shop on Wednesday afternoon',
];

async function seedLongTerm(memory: Memory, ns: { userId: string; agentId: string }): Promise<void> {
  await memory.rememberMany([
    { namespace: ns, content: 'The user prefers phone calls over e-mail', importance: 0.9 },
    { namespace: ns, content: 'Work order TS20240315 is open for the charging port', importance: 0.8 },
    { namespace: ns, content: 'The warranty covers the charging port until 2027-01', layer: 'knowledge' },
  ]);
}
