/**
 * The API report of every published package (API Extractor): what each entry point of each
 * `packages/<name>` exports, as its `.d.ts` in dist/ says, written to
 * `packages/<name>/api/<name>[-<subpath>][.node].api.md`. CI runs the check after the build
 * (`pnpm run api:check`, in .ci/run), so the public surface changes only on purpose: a change
 * fails it until `pnpm run api:update` writes the new report and the diff is committed with
 * the change that made it.
 *
 * API Extractor reads one entry point per run (microsoft/rushstack#1596), so each subpath of a
 * package's `exports` (`@zeromem/core/internal`, `@zeromem/protocol/token`, ...) gets a run and
 * a report of its own, as its documentation suggests for packages with several entry points;
 * an entry whose `node` condition names another `.d.ts` (core's Node entry) gets a `.node`
 * report beside the default one. Wildcard subpaths (embed-transformers' `./models/*`: model
 * files) have no types and no report. The reports hold no source paths, so moving files
 * changes none.
 *
 *   tsx scripts/api-report.ts [--update]     (after `pnpm build`)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel, ExtractorMessageCategory, type IConfigFile } from '@microsoft/api-extractor';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const update = process.argv.includes('--update');

type Exports = string | { [condition: string]: Exports };

/** Each distinct `types` file of an export, with the conditions that lead to it (`development` left out: it names sources). */
function typesOf(target: Exports, conditions: string[] = []): Array<{ conditions: string[]; types: string }> {
  if (typeof target === 'string') return target.endsWith('.d.ts') ? [{ conditions, types: target }] : [];
  return Object.entries(target).flatMap(([condition, next]) => {
    if (condition === 'development') return [];
    if (condition === 'types' && typeof next === 'string') return [{ conditions, types: next }];
    return typesOf(next, [...conditions, condition]);
  });
}

interface Entry {
  dir: string;
  packageName: string;
  report: string;
  types: string;
}

function entries(): Entry[] {
  return readdirSync(join(ROOT, 'packages')).flatMap((name) => {
    const dir = join(ROOT, 'packages', name);
    if (!existsSync(join(dir, 'package.json'))) return [];
    const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; private?: boolean; exports?: Record<string, Exports>; publishConfig?: { exports?: Record<string, Exports> } };
    if (json.private) return [];
    const exportsMap = json.publishConfig?.exports ?? json.exports ?? {};
    const base = json.name.replace(/^@[^/]+\//, '');
    return Object.entries(exportsMap).flatMap(([subpath, target]) => {
      if (subpath === './package.json' || subpath.includes('*')) return [];
      const found = [...new Map(typesOf(target).map((t) => [t.types, t])).values()];
      const stem = subpath === '.' ? base : `${base}-${subpath.slice(2).replaceAll('/', '-')}`;
      return found.map(({ conditions, types }) => ({
        dir,
        packageName: json.name,
        types,
        // The default (or only) types file is the report of the entry; another condition's is `<stem>.<condition>`.
        report: found.length > 1 && conditions.length > 0 && conditions[0] !== 'default' ? `${stem}.${conditions.join('.')}` : stem,
      }));
    });
  });
}

const temp = mkdtempSync(join(tmpdir(), 'zeromem-api-'));
const changed: string[] = [];
let failed = false;
try {
  for (const entry of entries()) {
    const mainEntryPointFilePath = join(entry.dir, entry.types);
    if (!existsSync(mainEntryPointFilePath)) throw new Error(`${relative(ROOT, mainEntryPointFilePath)} is missing: run \`pnpm build\` first`);
    mkdirSync(join(entry.dir, 'api'), { recursive: true });
    const configObject: IConfigFile = {
      projectFolder: entry.dir,
      mainEntryPointFilePath,
      compiler: {
        overrideTsconfig: {
          compilerOptions: { target: 'ES2022', lib: ['ES2022', 'DOM', 'DOM.Iterable'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: ['node'] },
          files: [mainEntryPointFilePath],
        },
      },
      // Written to a temporary folder and compared here (not by API Extractor), after the source
      // locations it puts on findings that have no place in the report are taken out: with them, an
      // edit that moves a line of an unrelated file would change the report.
      apiReport: { enabled: true, reportFileName: entry.report, reportFolder: temp, reportTempFolder: join(temp, 'work') },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // Findings go into the report (so a new one is a change to review), not to the console.
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          // zeromem marks no release stages (@public/@beta): every export of an entry is its API.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
          // The report marks an undocumented member `(undocumented)` in place; the message would add a source path.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: false } },
      },
    };
    const config = ExtractorConfig.prepare({ configObject, configObjectFullPath: undefined, packageJsonFullPath: join(entry.dir, 'package.json') });
    const result = Extractor.invoke(config, {
      localBuild: true,
      messageCallback: (message) => {
        // Its notes (which TypeScript it analyses with, a report written) say nothing here.
        if (message.logLevel === ExtractorLogLevel.None || message.category === ExtractorMessageCategory.Console) message.handled = true;
      },
    });
    if (result.errorCount > 0) {
      failed = true;
      continue;
    }
    const generated = readFileSync(join(temp, `${entry.report}.api.md`), 'utf8').replace(/^\/\/ [^\s]+\.d\.ts:\d+:\d+ - /gm, '// ');
    const path = join(entry.dir, 'api', `${entry.report}.api.md`);
    if (existsSync(path) && readFileSync(path, 'utf8') === generated) continue;
    changed.push(relative(ROOT, path));
    if (update) writeFileSync(path, generated);
    else failed = true;
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (changed.length > 0) {
  console.log(`${update ? 'api: written' : 'api: the public API changed (review the diff; if it is meant, run `pnpm run api:update` and commit the reports)'}:\n${changed.map((r) => `  ${r}`).join('\n')}`);
} else console.log('api: every report is current');
if (failed) process.exit(1);
