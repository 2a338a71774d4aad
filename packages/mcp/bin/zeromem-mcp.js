#!/usr/bin/env node
// Runs the TypeScript entry directly (no build step): tsx compiles it on load.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
const code = await main(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), 2000).unref();
