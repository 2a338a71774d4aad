// Imported first by bin.ts (the `zeromem-mcp` process only, never by the library), so that
// it runs before any other module of the server is evaluated.
import { setFlagsFromString } from 'node:v8';

// V8 doubles its young generation (up to 16 MB a semi-space) while a process allocates
// quickly, as loading the MCP SDK's and zod's schemas and a search index does, and keeps
// the pages after. A server that then waits for a client's next call does not need them:
// a young generation that stays at its first size holds 8-26 MB less resident memory, and
// its search CPU was the same (docs/benchmarks/2026-12-06-s12-mcplean.md, issue 32). A
// V8 without the flag prints "unrecognized flag" to stderr (never stdout, the protocol's)
// and runs as before.
setFlagsFromString('--semi-space-growth-factor=1');
