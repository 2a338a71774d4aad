#!/usr/bin/env node
// Runs the TypeScript entry directly (no build step): tsx compiles it on load.
import { register } from 'tsx/esm/api';

register();
const { runService } = await import('../src/cli.ts');
process.exitCode = await runService(process.argv.slice(2));
