#!/usr/bin/env node
// The `zeromem-mcp` command (package.json "bin"; built to dist/bin.js, run by plain node).
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
// Open handles (a share's reconnect timer) must not keep a stopped server alive.
setTimeout(() => process.exit(), 2000).unref();
