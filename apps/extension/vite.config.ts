import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

// Pages and the service worker are built together; the worker imports nothing from the
// SDK (it only opens the side panel), so it stays a small module with static imports only.
export default defineConfig({
  root: join(here, 'src'),
  publicDir: join(here, 'public'),
  build: {
    outDir: join(here, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: {
      input: {
        sidepanel: join(here, 'src/sidepanel.html'),
        options: join(here, 'src/options.html'),
        'service-worker': join(here, 'src/service-worker.ts'),
      },
      output: { entryFileNames: '[name].js' },
    },
  },
});
