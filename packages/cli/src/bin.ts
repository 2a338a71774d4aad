#!/usr/bin/env node
// The `zeromem` command (package.json "bin"; built to dist/bin.js, run by plain node).
import { main } from './main.ts';

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Should a library leave a handle open (a worker, a socket), do not hang: exit anyway.
setTimeout(() => process.exit(code), 2000).unref();
