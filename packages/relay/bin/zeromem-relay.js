#!/usr/bin/env node
// Runs the TypeScript entry directly (no build step): tsx compiles it on load.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/process.ts');
await run();
