#!/usr/bin/env node
// The `zeromem-mcp` command: runs the built JavaScript, dist/bin.js. The published package has
// it; in the repository `npx -y pnpm@10 build` makes it (a bin pointing into dist/ itself
// would not be linked by `pnpm install` in a fresh clone, before the build).
import { existsSync } from 'node:fs';

const built = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('zeromem-mcp: not built yet: run `npx -y pnpm@10 build` in the repository first.\n');
  process.exit(1);
}
await import(built.href);
