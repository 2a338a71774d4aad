import { openMemory, type BuiltContext, type Clock, type Memory, type MemoryRecord, type Namespace } from '@zeromem/core';
import { afterSalesCall } from './conversation.ts';

const DAY = 86_400_000;

/** What the demo prints through; tests pass their own to read the output. */
export type Print = (line: string) => void;

/** A clock the story moves by hand: three simulated days take no time. */
function storyClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

/** A day as the story prints it. */
const day = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * Seed story 004: an after-sales agent records, over three simulated days, what it learns
 * about a user; a marketing agent of the same user then lists what it may know.
 * The user's facts live in the user's namespace; each agent's working notes in its own.
 * How to reach the user is a keyed fact (`contact.channel`): phone calls on day 2, e-mail
 * from day 3, and the marketing agent uses only the current one.
 */
export async function runStory(print: Print, options: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange } = {}): Promise<{
  userFacts: MemoryRecord[];
  /** Every version of `contact.channel`, oldest first. */
  channelVersions: MemoryRecord[];
  marketingPrivate: number;
  marketingContext: BuiltContext;
  /** Tokens of every turn of the after-sales calls, resent as one prompt. */
  transcriptTokens: number;
}> {
  const clock = storyClock(Date.UTC(2026, 2, 16, 9, 0)); // Monday 16 March 2026, 09:00 UTC
  const memory = await openMemory({ name: 'zeromem-demo', clock, actor: 'demo', ...options });
  const user: Namespace = { userId: 'user-1042' };
  const afterSales: Namespace = { userId: 'user-1042', agentId: 'after-sales' };
  const marketing: Namespace = { userId: 'user-1042', agentId: 'marketing' };
  const as = { actor: 'after-sales-agent' };
  try {
    print('Day 1 (Monday): the user contacts after-sales.');
    await memory.remember({ namespace: user, content: "The charging port of the user's phone is loose.", tags: ['device', 'issue'], importance: 0.8, source: 'user' }, as);
    const order = await memory.remember(
      { namespace: user, id: 'TS20240315', content: 'Repair work order TS20240315 is open for the charging port.', tags: ['work-order'], metadata: { status: 'open' }, importance: 0.7, source: 'assistant' },
      as,
    );
    await memory.remember({ namespace: afterSales, content: 'Checked warranty: the phone is covered until 2027-01.', tags: ['warranty'], source: 'tool' }, as);
    await memory.remember({ namespace: user, content: 'The user is travelling today; reply by message only.', layer: 'session', ttl: '1d', source: 'user' }, as);
    print(`  remembered 3 user facts and 1 after-sales note; work order ${order.id}`);
    const transcript: string[] = [];
    transcript.push(...(await afterSalesCall(memory, afterSales, 1, print)));

    clock.advance(DAY);
    print('Day 2 (Tuesday): the user calls back.');
    const phone = await memory.remember({ namespace: user, key: 'contact.channel', content: 'The user prefers phone calls over e-mail.', tags: ['preference', 'contact'], importance: 0.9, source: 'user' }, as);
    print(`  fact contact.channel: "${phone.record.content}" (since ${day(phone.record.validFrom!)})`);
    const again = await memory.remember({ namespace: user, content: "The charging port of the user's phone is loose.", tags: ['device', 'issue'], source: 'user' }, as);
    print(`  the user repeats the charging-port problem: deduplicated=${again.deduplicated}, still one record (${again.id})`);
    transcript.push(...(await afterSalesCall(memory, afterSales, 2, print)));

    clock.advance(DAY);
    print('Day 3 (Wednesday): the user writes in: no more calls, e-mail from now on; after-sales books the repair update.');
    const email = await memory.remember({ namespace: user, key: 'contact.channel', content: 'The user prefers e-mail; no phone calls any more.', tags: ['preference', 'contact'], importance: 0.9, source: 'user' }, as);
    const closed = await memory.get(user, phone.id);
    print(`  fact contact.channel: "${email.record.content}" (since ${day(email.record.validFrom!)}); it closed ${email.closed.length} earlier fact, kept as history: "${closed!.content}" ${day(closed!.validFrom!)} .. ${day(closed!.validUntil!)}`);
    await memory.remember({ namespace: user, content: 'Repair status update due Wednesday at 15:00, by e-mail.', tags: ['contact', 'appointment'], importance: 0.8, source: 'assistant' }, as);
    const updated = await memory.update(user, 'TS20240315', { metadata: { status: 'parts-ordered' } }, as);
    print(`  work order ${updated.id} is now "${String(updated.metadata.status)}" (version ${updated.version})`);
    const swept = await memory.sweep();
    print(`  sweep: ${swept} expired session memories deleted ("travelling today" and the call turns not marked to keep had a 1-day TTL)`);

    print('');
    print('The marketing agent asks what it may know about user-1042:');
    print('  the profile (the current fact of every key):');
    for (const entry of await memory.profile(user)) print(`    ${entry.key}: ${entry.content} (since ${day(entry.validFrom)})`);
    const { items: channelVersions } = await memory.list(user, { key: 'contact.channel', includeClosed: true, order: 'asc' });
    print(`  contact.channel over time: ${channelVersions.map((v) => `"${v.content}" ${day(v.validFrom!)} .. ${v.validUntil === null ? 'now' : day(v.validUntil)}`).join(', then ')}`);
    print('  the facts that hold now:');
    const { items: userFacts } = await memory.list(user, { order: 'asc' });
    for (const fact of userFacts) print(`  - ${fact.content}  [${fact.tags.join(', ')}]`);
    const contact = await memory.list(user, { tags: { any: ['preference', 'contact'] }, order: 'asc' });
    print(`  how to reach the user (tags preference|contact): ${contact.items.map((r) => r.content).join(' / ')}`);
    const marketingPrivate = await memory.count(marketing);
    print(`  its own namespace holds ${marketingPrivate} memories; the after-sales notes stay in the after-sales namespace (${await memory.count(afterSales)} there), never mixed in.`);
    const log = await memory.audit(user);
    print(`  audit log of the user namespace: ${log.length} entries, e.g. ${log.map((e) => `${e.op} by ${e.actor}`).slice(0, 3).join('; ')} (no content in the log)`);

    print('');
    const question = 'Plan a spring offer for a phone case: how and when should we contact this user?';
    print(`The marketing agent asks its LLM: "${question}"`);
    const marketingContext = await memory.buildContext({
      namespace: marketing,
      query: question,
      system: 'You are the marketing agent. Use only the facts given. Respect how the user wants to be contacted.',
      budget: 300,
      layers: { profile: { namespace: user }, long_term: { namespace: user, maxItems: 5 }, knowledge: false },
    });
    print('  the context it would send (chat messages):');
    for (const message of marketingContext.messages) for (const line of `[${message.role}] ${message.content}`.split('\n')) print(`    ${line}`);
    const { report } = marketingContext;
    print(`  token report (${report.tokenizer}): ${report.tokens} of a ${report.budget}-token budget ` +
      `(text ${report.textTokens}, as chat messages ${report.messageTokens}); per layer: ` +
      (['system', 'profile', 'session', 'long_term', 'knowledge'] as const).map((layer) => `${layer} ${report.layers[layer].tokens} (${report.layers[layer].items} items)`).join(', '));
    for (const item of report.included.filter((i) => i.layer === 'profile' || i.layer === 'long_term')) {
      print(`    included ${item.id} (${item.layer})${item.score === null ? '' : ` score ${item.score.toFixed(3)}`}, ${item.tokens} tokens`);
    }
    for (const item of report.dropped) print(`    dropped ${item.id} (${item.layer}): ${item.reason}`);
    const tokenizer = await memory.tokenizer();
    const transcriptTokens = tokenizer.count(transcript.join('\n'));
    print(`  full history this context replaces (every memory of the namespaces it reads): ${report.fullHistoryTokens} tokens`);
    print(`  resending the after-sales calls word for word instead would cost ${transcriptTokens} tokens, ` +
      `${(transcriptTokens / report.tokens).toFixed(1)}x this context, and grow with every call; memory operations spent 0 LLM tokens.`);
    return { userFacts, channelVersions, marketingPrivate, marketingContext, transcriptTokens };
  } finally {
    memory.close();
  }
}
