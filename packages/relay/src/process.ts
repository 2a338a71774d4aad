import { main } from './cli.ts';
import type { Relay } from './server/server.ts';

/**
 * The `zeromem-relay` process: runs the command line, and while serving turns the first
 * SIGTERM or SIGINT into a clean stop (exit 0); a second signal exits 1 at once.
 */
export async function run(): Promise<void> {
  const code = await main(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr }, waitForSignal);
  process.exitCode = code;
  // Everything is closed by now; a stray handle (a library timer) must not keep the process alive.
  setTimeout(() => process.exit(code), 1000).unref();
}

function waitForSignal(relay: Relay): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      process.once('SIGTERM', () => process.exit(1));
      process.once('SIGINT', () => process.exit(1));
      relay.close().then(resolve, reject);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
