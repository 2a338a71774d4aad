#!/usr/bin/env node
// The `zeromem-server` command (package.json "bin"; built to dist/bin.js, run by plain node).
import { runService } from './cli.ts';

process.exitCode = await runService(process.argv.slice(2));
