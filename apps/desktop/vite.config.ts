/** For the `vite` command line (`npx vite build apps/desktop`); the scripts pass the same config inline. */
import { defineConfig } from 'vite';
import { rendererConfig } from './build/renderer-config.ts';

export default defineConfig(rendererConfig());
