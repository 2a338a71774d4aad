// Node has no IndexedDB; fake-indexeddb provides one in memory (browsers and Electron use the real one).
import 'fake-indexeddb/auto';
import { runStory } from './story.ts';
import { runSyncStory } from './sync-story.ts';

// Count every network call the story makes: memory operations must make none (no LLM, no server).
let networkCalls = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = (...args: Parameters<typeof fetch>) => {
  networkCalls++;
  return realFetch(...args);
};

await runStory((line) => console.log(line));
await runSyncStory((line) => console.log(line));
console.log(`\nNetwork (LLM) calls made by memory operations: ${networkCalls}.`);
