import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RelayError, startRelay } from '../src/index.ts';
import { SECRET, cleanup, tempDir } from './helpers.ts';

afterEach(cleanup);

async function failure(options: Parameters<typeof startRelay>[0]): Promise<RelayError> {
  try {
    const relay = await startRelay({ logLevel: 'silent', ...options });
    await relay.close();
  } catch (err) {
    if (err instanceof RelayError) return err;
    throw err;
  }
  throw new Error('expected startRelay to fail');
}

describe('startRelay options', () => {
  it('refuses a missing or short secret, a missing data directory and out-of-range limits with INVALID_CONFIG', async () => {
    const dataDir = tempDir();
    const cases: Array<[Parameters<typeof startRelay>[0], RegExp]> = [
      [{ secret: '', dataDir }, /secret is required/],
      [{ secret: 'short', dataDir }, /too short/],
      [{ secret: SECRET, dataDir: '' }, /data directory is required/],
      [{ secret: SECRET, dataDir, port: 70000 }, /port must be/],
      [{ secret: SECRET, dataDir, maxMessageBytes: 10 }, /maxMessageBytes must be/],
      [{ secret: SECRET, dataDir, maxDocumentBytes: 1.5 }, /maxDocumentBytes must be/],
      [{ secret: SECRET, dataDir, maxAwarenessBytes: 10 }, /maxAwarenessBytes must be/],
      [{ secret: SECRET, dataDir, maxConnectionsPerSubject: 0 }, /maxConnectionsPerSubject must be/],
      [{ secret: SECRET, dataDir, compactEvery: -1 }, /compactEvery must be/],
      [{ secret: SECRET, dataDir, maxPendingBytes: 0 }, /maxPendingBytes must be/],
      [{ secret: SECRET, dataDir, maxBufferedBytes: 1024 }, /maxBufferedBytes must be/],
      [{ secret: SECRET, dataDir, maxMessagesPerSecond: 0 }, /maxMessagesPerSecond must be/],
      [{ secret: SECRET, dataDir, maxBytesPerSecond: 2.5 }, /maxBytesPerSecond must be/],
      [{ secret: SECRET, dataDir, maxUpdatesPerCommit: 0 }, /maxUpdatesPerCommit must be/],
      [{ secret: SECRET, dataDir, maxCpuMsPerSecond: 1001 }, /maxCpuMsPerSecond must be/],
      [{ secret: SECRET, dataDir, logLevel: 'loud' as 'info' }, /log level must be/],
    ];
    for (const [options, message] of cases) {
      const err = await failure(options);
      expect(err.code).toBe('INVALID_CONFIG');
      expect(err.message).toMatch(message);
    }
  });

  it('reports a data directory it cannot use as STORAGE_FAILED', async () => {
    const file = join(tempDir(), 'not-a-directory');
    writeFileSync(file, 'x');
    const err = await failure({ secret: SECRET, dataDir: file });
    expect(err.code).toBe('STORAGE_FAILED');
    expect(err.message).toContain(file);
  });
});
