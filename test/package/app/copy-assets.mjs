// Copies what the browser embedder loads into the app's public/ folder (Vite serves it):
// the bundled model folder(s) and onnxruntime-web's wasm files, as the package README says.
import { cpSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { bundledModelsDir, onnxWasmFiles } from '@zeromem/embed-transformers';

cpSync(bundledModelsDir(), 'public/models', { recursive: true });
mkdirSync('public/ort', { recursive: true });
for (const file of onnxWasmFiles()) cpSync(file, join('public/ort', basename(file)));
