import type { Memory, Namespace } from '@zeromem/core';
import type { Print } from './story.ts';

/** What the user and the after-sales agent say on each day's call; `!` marks a turn worth keeping. */
const CALLS: Record<number, Array<[role: 'user' | 'assistant', text: string]>> = {
  1: [
    ['user', 'Hello, my phone stopped charging yesterday evening.'],
    ['assistant', 'Sorry to hear that. Does the cable sit loosely in the charging port?'],
    ['user', 'Yes, it wobbles and the charging only works if I hold the cable at an angle.'],
    ['assistant', 'That sounds like a loose charging port. I am opening a repair work order, TS20240315.'],
    ['user', 'Thank you. I am travelling today, so please only send me messages today.'],
    ['assistant', '!Noted: the repair of the charging port runs under work order TS20240315; the phone is under warranty until 2027-01.'],
  ],
  2: [
    ['user', 'Hi again, the charging port is still loose. Any news on the repair?'],
    ['assistant', 'The work order is open; the technician will order the part.'],
    ['user', '!Please call me rather than e-mailing me, I rarely read my e-mail.'],
    ['assistant', 'Understood, we will call you. Would Wednesday afternoon suit you for a callback?'],
    ['user', 'Wednesday at 15:00 works for me.'],
    ['assistant', '!Callback booked for Wednesday at 15:00, by phone.'],
  ],
};

/**
 * One day's call as the after-sales agent's session: every turn stored with `addTurn`
 * (one-day TTL), a context built before each reply, the turns marked with `!` kept as
 * long-term notes when the call ends. Returns the transcript lines.
 */
export async function afterSalesCall(memory: Memory, namespace: Namespace, day: number, print: Print): Promise<string[]> {
  const session = memory.session({ namespace, id: `call-day-${day}`, ttl: '1d', context: { budget: 400, system: 'You are the after-sales agent.' } });
  const transcript: string[] = [];
  let largest = 0;
  for (const [role, raw] of CALLS[day]!) {
    const durable = raw.startsWith('!');
    const text = durable ? raw.slice(1) : raw;
    if (role === 'assistant') largest = Math.max(largest, (await session.context()).report.tokens); // what its LLM would get
    await session.addTurn(role, text, { durable });
    transcript.push(`${role}: ${text}`);
  }
  const ended = await session.end();
  print(`  after-sales call (${transcript.length} turns): contexts of at most ${largest} tokens; ended with ${ended.promoted.length} turn(s) kept, ${ended.expiring} left to expire, ${ended.llm.calls} LLM calls by memory`);
  return transcript;
}
