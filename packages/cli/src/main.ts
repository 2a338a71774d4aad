import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_WEIGHTS, type RankingWeights } from '@zeromem/core';
import { EmbedderUnavailableError, parseEmbedderSpec } from './eval/embedder-choice.ts';
import { JsonlError } from './eval/read-jsonl.ts';
import { runEval, type EvalOptions } from './eval/run-eval.ts';
import { checkImport, type ImportCheckOptions } from './import/check-import.ts';
import { formatOf } from './import/input-units.ts';
import { namespaceArgs } from './jobs/namespace-args.ts';
import { runImport } from './import/run-import.ts';
import { runExport } from './jobs/export-job.ts';
import { runForgetUser } from './jobs/forget-user-job.ts';
import { runInspect } from './jobs/inspect-job.ts';
import { reportFailure } from './jobs/job-error.ts';
import { runConsolidate, runRetier, runSweep } from './jobs/lifecycle-jobs.ts';
import { runReindex } from './jobs/reindex-job.ts';

/** The batch jobs on the durable store ($ZEROMEM_HOME or --dir): each resolves to its exit code. */
const JOBS: Record<string, (args: readonly string[], io: Io) => Promise<number>> = {
  import: runImport,
  export: runExport,
  inspect: runInspect,
  'forget-user': runForgetUser,
  reindex: runReindex,
  sweep: runSweep,
  retier: runRetier,
  consolidate: runConsolidate,
};

const USAGE = `Usage: zeromem <command> [options]

Commands on the store ($ZEROMEM_HOME, else ~/.zeromem; --dir <dir>, --name <name>):
  import        store the memories of a JSONL or CSV file in batches (resumable)
  export        write a user's memories as a JSONL export
  inspect       counts, sizes, namespaces and top tags of the store
  forget-user   delete every memory of a user
  reindex       embed every memory with another model (in the background with --detach)
  sweep         delete expired memories          } one pass each:
  retier        age memories, move cold ones     } run them on a schedule
  consolidate   merge near-duplicate memories    } (cron, see the README)
  serve         run the memory service: every verb over local HTTP (see zeromem serve --help)

Other commands:
  eval          replay memories into zeromem, rank queries with recall, score the run
  check-import  check a file before zeromem import or importJsonl() reads it: import it
                into a throwaway in-process memory and report every bad line

Job commands print progress on stderr and one JSON summary line on stdout.
Run "zeromem <command> --help" for the options of a command.
`;

const IMPORT_USAGE = `Usage: zeromem check-import <file> [options]

Reads a file exactly as zeromem import does (a zeromem export, what zeromem export and
memory.exportJsonl() write; JSONL with one memory per line; or CSV; gzipped with .gz),
storing it into a fresh in-process memory a batch at a time, and prints what it stored:
records imported, duplicates, expired ones skipped, and every bad line by number with
what is wrong: the lines zeromem import would list in its failure report. An export is
read by memory.importJsonl() (with skipInvalid), so the SDK and POST /v1/import say the
same of it. The memory lives in memory (fake-indexeddb): nothing is kept.

Options:
  --user <id>, --agent <id>, --scope <s>
                   namespace of the items that name none (as for zeromem import)
  --format jsonl|csv  the file's format (default: from its name)
  -h, --help       show this help

Exit codes: 0 every line is good; 1 a line is bad or the file cannot be read; 2 bad arguments.
`;

const EVAL_USAGE = `Usage: zeromem eval --memories <file> --queries <file> --out <run.jsonl> [options]
       (from the repository root: pnpm run eval --memories ... --queries ... --out ...)

Replays every memory into a fresh in-process zeromem (public API, fake-indexeddb), waits
until all are embedded, answers each query with recall() in its own namespace, writes
the run file (one {"qid","ranked_ids"} line per query, best first) and
<out>.metrics.json, and prints R@5, R@10, Hit@10, All@10, NDCG@10 and MRR overall and
per category. The ranking never reads "answer" or "gold_*"; only the scorer does.

Required:
  --memories <file>      memories JSONL (.jsonl, or .jsonl.gz read with gunzip)
  --queries <file>       queries JSONL
  --out <file>           run file to write (JSONL); metrics go to <file>.metrics.json

Options:
  --k <n>                ids per query in the run file, at least (1..1000; 10 or more
                         are always written so @10 metrics are defined). Default 10.
  --embedder <which>     bundled (default): the offline models of @zeromem/embed-transformers
                         (bge-small-zh-v1.5 for Chinese text, zeromem-static-en for the rest);
                         minilm: the same with all-MiniLM-L6-v2 for English (slower);
                         none: BM25 only; or a local model path or a model id
  --weights <list>       recall weights, e.g. text=0.6,vector=0.4 (keys: ${Object.keys(DEFAULT_WEIGHTS).join(', ')})
  --min-relevance <x>    leave out each hit below this relevance, 0..1 (default: recall's, no hits when none reaches 0.01); 0 keeps every hit
                         and tops short lists up with the newest memories, as before the floor
  --limit-queries <n>    rank and score only the first n queries (quick runs)
  --strict               exit 1 when some memories could not be stored (they are always reported)
  -h, --help             show this help

Exit codes: 0 done; 1 a file or the embedder failed, or (with --strict) a memory could not be stored;
2 bad arguments.
`;

/** A mistake in the command line: exit code 2, with the usage hint. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface Io {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

/** Runs the CLI with these arguments (without `node` and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) throw new UsageError('a command is required');
    if (command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(USAGE);
      return 0;
    }
    if (command === 'serve') {
      // Loaded on demand: the service's HTTP stack is not needed by the other commands.
      const { runService } = await import('@zeromem/server');
      return await runService(rest, process.env, io);
    }
    const job = JOBS[command];
    if (job) {
      try {
        return await job(rest, io);
      } catch (err) {
        return reportFailure(io, command, err);
      }
    }
    if (command === 'check-import') {
      const options = parseImportArgs(rest);
      if (options === 'help') {
        io.stdout.write(IMPORT_USAGE);
        return 0;
      }
      return await checkImport({ ...options, stdout: io.stdout, stderr: io.stderr });
    }
    if (command !== 'eval') throw new UsageError(`unknown command "${command}"`);
    const options = parseEvalArgs(rest);
    if (options === 'help') {
      io.stdout.write(EVAL_USAGE);
      return 0;
    }
    return await runEval({ ...options, stdout: io.stdout, stderr: io.stderr });
  } catch (err) {
    if (err instanceof UsageError) {
      const known = command === 'eval' || command === 'check-import' ? command : undefined;
      io.stderr.write(`zeromem${known ? ` ${known}` : ''}: ${err.message}\nRun "zeromem ${known ? `${known} ` : ''}--help" for usage.\n`);
      return 2;
    }
    if (command === 'check-import') {
      io.stderr.write(`zeromem check-import: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
    if (err instanceof EmbedderUnavailableError || err instanceof JsonlError) {
      io.stderr.write(`zeromem eval: ${err.message}\n`);
      return 1;
    }
    io.stderr.write(`zeromem eval failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

/** Parses and checks the options of `eval`; throws {@link UsageError} with what is wrong. */
export function parseEvalArgs(args: readonly string[]): Omit<EvalOptions, 'stdout' | 'stderr'> | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        memories: { type: 'string' },
        queries: { type: 'string' },
        out: { type: 'string' },
        k: { type: 'string' },
        embedder: { type: 'string' },
        weights: { type: 'string' },
        'limit-queries': { type: 'string' },
        'min-relevance': { type: 'string' },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError(argumentMessage(err as Error & { code?: string }));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}" (every input is named, e.g. --memories <file>)`);
  const missing = (['memories', 'queries', 'out'] as const).filter((name) => values[name] === undefined || values[name] === '');
  if (missing.length) throw new UsageError(`missing ${missing.map((name) => `--${name} <file>`).join(', ')}`);
  const memories = resolve(values.memories!);
  const queries = resolve(values.queries!);
  const out = resolve(values.out!);
  requireFile('--memories', memories);
  requireFile('--queries', queries);
  if (out === memories || out === queries) throw new UsageError('--out must not be one of the input files');
  if (isDirectory(out)) throw new UsageError(`--out ${values.out} is a directory; give a file name such as run.jsonl`);
  const k = values.k === undefined ? 10 : wholeNumber('--k', values.k, 1, 1000);
  const limitQueries = values['limit-queries'] === undefined ? undefined : wholeNumber('--limit-queries', values['limit-queries'], 1, Number.MAX_SAFE_INTEGER);
  const embedderValue = values.embedder ?? 'bundled';
  if (embedderValue.trim() === '') throw new UsageError('--embedder must be bundled, minilm, none, a model path or a model id');
  const result: Omit<EvalOptions, 'stdout' | 'stderr'> = {
    memories,
    queries,
    out,
    k,
    embedder: parseEmbedderSpec(embedderValue),
    strict: values.strict === true,
  };
  if (values.weights !== undefined) result.weights = parseWeights(values.weights);
  if (limitQueries !== undefined) result.limitQueries = limitQueries;
  if (values['min-relevance'] !== undefined) {
    const floor = Number(values['min-relevance']);
    if (values['min-relevance'].trim() === '' || !(floor >= 0 && floor <= 1)) throw new UsageError(`--min-relevance must be a number from 0 to 1, got "${values['min-relevance']}"`);
    result.minRelevance = floor;
  }
  return result;
}

/** Parses and checks the arguments of `check-import`; throws {@link UsageError} with what is wrong. */
export function parseImportArgs(args: readonly string[]): Omit<ImportCheckOptions, 'stdout' | 'stderr'> | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { format: { type: 'string' }, user: { type: 'string' }, agent: { type: 'string' }, scope: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    throw new UsageError(argumentMessage(err as Error & { code?: string }));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `one file at a time, got ${positionals.length}` : 'which file? zeromem check-import <file.jsonl|file.csv>');
  const file = resolve(positionals[0]!);
  requireFile('file', file);
  const format = values.format ?? formatOf(file);
  if (format !== 'jsonl' && format !== 'csv') {
    throw new UsageError(values.format === undefined ? `cannot tell the format of ${file} from its name; pass --format jsonl or --format csv` : `--format must be jsonl or csv, got "${values.format}"`);
  }
  if (values.user === undefined && (values.agent !== undefined || values.scope !== undefined)) throw new UsageError('--agent and --scope need --user');
  return { file, format, namespace: namespaceArgs(values) };
}

/** `text=0.6,vector=0.4` -> `{ text: 0.6, vector: 0.4 }`, keys checked against core's weights. */
export function parseWeights(value: string): Partial<RankingWeights> {
  const known = Object.keys(DEFAULT_WEIGHTS);
  const weights: Partial<RankingWeights> = {};
  for (const part of value.split(',')) {
    const match = /^\s*([A-Za-z]+)\s*=\s*([^\s=]+)\s*$/.exec(part);
    if (!match) throw new UsageError(`--weights: "${part}" is not key=number (e.g. text=0.6,vector=0.4)`);
    const [, key, raw] = match;
    if (!known.includes(key!)) throw new UsageError(`--weights: unknown weight "${key}"; known: ${known.join(', ')}`);
    const number = Number(raw);
    if (!Number.isFinite(number) || number < 0) throw new UsageError(`--weights: ${key} must be a number, 0 or more, got "${raw}"`);
    if (key! in weights) throw new UsageError(`--weights: ${key} is given twice`);
    weights[key as keyof RankingWeights] = number;
  }
  const text = weights.text ?? DEFAULT_WEIGHTS.text;
  const vector = weights.vector ?? DEFAULT_WEIGHTS.vector;
  if (text + vector <= 0) throw new UsageError('--weights: text and vector must not both be 0');
  return weights;
}

function argumentMessage(err: Error & { code?: string }): string {
  const option = /'(-[^' ]+)/.exec(err.message)?.[1];
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? err.message}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (!option) return err.message;
      return /ambiguous/.test(err.message) ? `${option} needs a value; write ${option}=<value> for a value that starts with "-"` : `${option} needs a value`;
    default:
      return err.message;
  }
}

function wholeNumber(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ' up'}, got "${raw}"`);
  }
  return n;
}

function requireFile(name: string, path: string): void {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw new UsageError(`${name}: no such file: ${path}`);
  }
  if (!isFile) throw new UsageError(`${name}: not a file: ${path}`);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
