/** `test:electron`: the launch test, kept out of `pnpm test` (it needs Electron's binary). */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['test/electron/**/*.electron.ts'], testTimeout: 180_000, hookTimeout: 180_000 },
});
