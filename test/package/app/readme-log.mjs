// Preload for README examples run in the user's project: each checked console.log line of
// the example (rewritten to __readmeLog(n, ...)) prints one JSON line [n, what it printed].
import { format } from 'node:util';

globalThis.__readmeLog = (index, ...args) => process.stdout.write(`${JSON.stringify([index, format(...args)])}\n`);
