#!/usr/bin/env node
// The `zeromem-mcp` command (package.json "bin"; built to dist/bin.js, run by plain node).
import './young-generation.ts'; // first: before the other modules are evaluated
import { isZeromemError } from '@zeromem/core';
import { main } from './main.ts';

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  // A store or relay that cannot be used: say what is wrong, without a stack trace.
  if (!isZeromemError(err)) throw err;
  // e.g. a damaged store: STORAGE_FAILED (corrupt).
  const reason = err.details.storage?.reason;
  process.stderr.write(`zeromem-mcp: ${err.code}${reason ? ` (${reason})` : ''}: ${err.message}\n`);
  process.exitCode = 1;
}
// Open handles (a share's reconnect timer) must not keep a stopped server alive.
setTimeout(() => process.exit(), 2000).unref();
