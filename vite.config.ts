import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Browser tests start Chromium; two cores do not run many at once well.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'all',
          include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/integrations/**/*.test.ts', 'test/bench/**/*.test.ts', 'test/docs/**/*.test.ts', 'test/package/**/*.test.ts', 'test/kit/**/*.test.ts'],
        },
      },
      {
        // The core suite a second time, on the Node store on disk (test/helpers.ts): one suite, both engines.
        extends: true,
        test: {
          name: 'core-on-disk',
          include: ['packages/core/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'packages/core/test/store/sqlite/**'],
          env: { ZEROMEM_TEST_STORE: 'disk' },
        },
      },
    ],
  },
});
