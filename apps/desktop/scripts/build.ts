/** `pnpm --filter @zeromem/desktop build`: the renderer and the Electron bundles. */
import { buildElectron, buildRenderer } from '../build/build-app.ts';

const out = await buildRenderer();
await buildElectron();
console.log(`built ${out} and dist-electron/`);
