#!/usr/bin/env node
// The `zeromem-relay` command (package.json "bin"; built to dist/bin.js, run by plain node).
import { run } from './process.ts';

await run();
