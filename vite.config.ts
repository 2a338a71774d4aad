import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/integrations/**/*.test.ts', 'test/bench/**/*.test.ts', 'test/docs/**/*.test.ts', 'test/package/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Browser tests start Chromium; two cores do not run many at once well.
    maxWorkers: 2,
  },
});
