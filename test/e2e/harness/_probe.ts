import type { Dexie } from '../../../packages/core/node_modules/dexie';
export type X = Dexie;
