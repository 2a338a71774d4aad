/**
 * The seed story: one user (user-1042), an after-sales agent and a marketing agent. The
 * user's facts live in the user's namespace, which both agents read (and which syncs);
 * each agent's own notes and conversation turns live in its private namespace.
 */
import type { Namespace, RememberInput } from '@zeromem/core';
import type { AppMemory } from './app-memory.ts';

export const USER_ID = 'user-1042';

export type AgentId = 'after-sales' | 'marketing';

export interface AgentDefinition {
  id: AgentId;
  /** Shown in the UI. */
  name: string;
  /** One line under the name. */
  role: string;
  /** What to type first, shown in the empty chat. */
  suggestions: string[];
  /** The agent's instructions (the system layer). */
  instructions: string;
  /** Context budget per turn, in tokens. */
  budget: number;
}

/** How the agents call memory tools: lines of their reply (any model can write them; see memory-tools.ts). */
export const TOOL_INSTRUCTIONS =
  'Memory tools: to store a lasting fact about the user for all of the user\'s agents, write a line "REMEMBER: <fact>". ' +
  'To keep a note only you see, write "NOTE: <note>". To forget a stored memory, write "FORGET: <its words>". ' +
  'Use only the memories given here; say so when you do not know.';

export const AGENTS: readonly AgentDefinition[] = [
  {
    id: 'after-sales',
    name: 'After-sales agent',
    role: 'Handles repairs, warranty and callbacks.',
    suggestions: ['My phone stopped charging, the charging port is loose.', 'Please call me rather than e-mailing me.'],
    instructions: `You are the after-sales agent of a phone shop. Help the user with repairs and warranty. ${TOOL_INSTRUCTIONS}`,
    budget: 600,
  },
  {
    id: 'marketing',
    name: 'Marketing agent',
    role: 'Plans offers; reads what after-sales learned about the user.',
    suggestions: ['What do we know about this user?', 'How and when should we contact this user about a spring offer?'],
    instructions: `You are the marketing agent of a phone shop. Plan offers that respect what the user wants. ${TOOL_INSTRUCTIONS}`,
    budget: 600,
  },
];

export function agentById(id: AgentId): AgentDefinition {
  const agent = AGENTS.find((a) => a.id === id);
  if (!agent) throw new Error(`unknown agent ${id}`);
  return agent;
}

/** The user's namespace: shared by the user's agents and, when connected, through the relay. */
export function userNamespace(userId = USER_ID): Namespace {
  return { userId };
}

/** An agent's private namespace: its notes and conversation turns. */
export function agentNamespace(agent: AgentId, userId = USER_ID): Namespace {
  return { userId, agentId: agent };
}

/** The user's earlier history, imported from the shop's records. */
const EARLIER_FACTS: Array<[string, string[]]> = [
  ['The user bought a Pixel 7 phone in March 2024.', ['purchase', 'device']],
  ['The user bought a screen protector in April 2024.', ['purchase']],
  ['The user returned a pair of earbuds in June 2024 because they did not fit.', ['purchase', 'return']],
  ['The user lives in Lyon and visits the Part-Dieu store.', ['location']],
  ['The user asked about trade-in offers for an old phone in 2025.', ['offer']],
  ['The user opted out of SMS marketing in January 2025.', ['preference', 'contact', 'consent']],
  ['The user speaks French and English and prefers French on calls.', ['preference', 'language']],
  ['An earlier work order, TS20231102, fixed a cracked screen.', ['work-order']],
  ['The user rated the last repair 4 out of 5.', ['feedback']],
  ['The user usually shops on Saturday mornings.', ['habit']],
  ['The user has a family plan with two other lines.', ['plan']],
  ['The user prefers a black phone case.', ['preference']],
];

const HOUR = 3_600_000;

/** Story time, as hours before `now`: the story ends just before the user opens the app (over 56 hours, three days). */
function hoursAgo(now: number, hours: number): { createdAt: number } {
  return { createdAt: now - Math.round(hours * HOUR) };
}

/**
 * The memories "Seed the story" writes: the shop's earlier records, imported on the first
 * morning, and what after-sales learned over three days, each at its story time (the last
 * one 8 hours before `now`), so the inspector's dates and recency tell the story.
 */
export function storySeed(userId = USER_ID, now = Date.now()): Array<{ input: RememberInput; actor: string }> {
  const user = userNamespace(userId);
  const afterSales = agentNamespace('after-sales', userId);
  const as = 'after-sales-agent';
  return [
    // What the shop knew before, imported on day one: enough history that a context picks, and the full history costs.
    ...EARLIER_FACTS.map(([content, tags], i) => ({ input: { namespace: user, content, tags, importance: 0.4, source: 'system' as const, ...hoursAgo(now, 56 - i / 60) }, actor: 'crm-import' })),
    { input: { namespace: user, content: "The charging port of the user's phone is loose.", tags: ['device', 'issue'], importance: 0.8, source: 'user', ...hoursAgo(now, 54.5) }, actor: as },
    { input: { namespace: user, id: 'TS20240315', content: 'Repair work order TS20240315 is open for the charging port.', tags: ['work-order'], metadata: { status: 'parts-ordered' }, importance: 0.7, source: 'assistant', ...hoursAgo(now, 54.25) }, actor: as },
    { input: { namespace: afterSales, content: 'Checked warranty: the phone is covered until 2027-01.', tags: ['warranty'], layer: 'knowledge', source: 'tool', ...hoursAgo(now, 32) }, actor: as },
    // How to reach the user is a fact that changes (key contact.channel): phone calls on day two, e-mail from day three on.
    // Fixed ids: seeding again finds them instead of adding a version.
    { input: { namespace: user, id: 'channel-phone', key: 'contact.channel', content: 'The user prefers phone calls over e-mail.', tags: ['preference', 'contact'], importance: 0.9, source: 'user', ...hoursAgo(now, 26.75) }, actor: as },
    { input: { namespace: user, id: 'channel-email', key: 'contact.channel', content: 'The user prefers e-mail; no phone calls any more.', tags: ['preference', 'contact'], importance: 0.9, source: 'user', ...hoursAgo(now, 9) }, actor: as },
    { input: { namespace: user, content: 'Repair status update due Wednesday at 15:00, by e-mail.', tags: ['contact', 'appointment'], importance: 0.8, source: 'assistant', ...hoursAgo(now, 8) }, actor: as },
  ];
}

/** What one "Seed the story" wrote: all of it, the user's shared facts, the agents' private notes, and the shared facts a later version replaced. */
export interface SeedResult {
  written: number;
  shared: number;
  private: number;
  replaced: number;
}

/** Writes the seed story (deduplicated: seeding twice adds nothing). */
export async function seedStory(memory: Pick<AppMemory, 'remember'>, userId = USER_ID, now = Date.now()): Promise<SeedResult> {
  const result: SeedResult = { written: 0, shared: 0, private: 0, replaced: 0 };
  for (const { input, actor } of storySeed(userId, now)) {
    try {
      const written = await memory.remember(input, { actor });
      if (written.deduplicated) continue;
      result.written++;
      result.replaced += written.closed.length;
      if (input.namespace.agentId) result.private++;
      else result.shared++;
    } catch (err) {
      // The work order keeps its id: seeding again after it was edited is a CONFLICT, not an error.
      if ((err as { code?: string }).code !== 'CONFLICT') throw err;
    }
  }
  return result;
}

/** The status line after seeding: the header counts the shared facts that hold now, so say where the rest went. */
export function seedSummary(result: SeedResult): string {
  if (result.written === 0) return 'The story is already in memory.';
  const notes = result.private === 1 ? '1 private note' : `${result.private} private notes`;
  const replaced = result.replaced === 0 ? '' : ` (${result.replaced} of them replaced by a later one, kept as history)`;
  return `Seeded the story: ${result.written} memories written, ${result.shared} shared ${result.shared === 1 ? 'fact' : 'facts'}${replaced} and ${notes} of the after-sales agent.`;
}
