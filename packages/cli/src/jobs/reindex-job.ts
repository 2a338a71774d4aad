import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '@zeromem/core';
import { chooseEmbedder, describeEmbedderSpec, parseEmbedderSpec } from '../eval/embedder-choice.ts';
import { STORE_OPTIONS, parseJobArgs, requirePositionals } from './job-args.ts';
import { EXIT, JobError, invalidArgument, printSummary, type JobIo } from './job-error.ts';
import { Interrupt } from './interrupt.ts';
import { JobProgress } from './job-progress.ts';
import { openStore, storeChoice } from './open-store.ts';

export const REINDEX_USAGE = `Usage: zeromem reindex --embedder <bundled|path|model id> [--detach]

Embeds every memory of the store with this model (vectors are stored per model, so what
is already embedded with it is skipped), with progress and an estimate. Open the store
with the same embedder afterwards and recall uses these vectors. Ctrl-C stops after the
vectors in flight are stored; run it again to embed the rest.

Options:
  --embedder <which> bundled: the offline models of @zeromem/embed-transformers
                     (bge-small-zh-v1.5 for Chinese text, zeromem-static-en for the rest);
                     minilm: the same with all-MiniLM-L6-v2 for English (better English
                     recall, some 10-100 times slower to embed);
                     or a local model directory, or a model id (local files only)
  --detach           run in the background: prints the process id and its log file
                     (<dir>/jobs/reindex-<name>.log, ending in the JSON summary) and returns
  --dir <dir>, --name <name>  the store (default $ZEROMEM_HOME or ~/.zeromem, name zeromem)
  -h, --help         show this help

Exit codes: 0 every memory embedded; 1 the embedder or the store failed; 2 invalid
arguments; 130 interrupted.
`;

/** Progress is checked this often (ms): the embedding queue works off the caller's path. */
const POLL_MS = 200;

/** `zeromem reindex`: see {@link REINDEX_USAGE}. */
export async function runReindex(args: readonly string[], io: JobIo): Promise<number> {
  const { values, positionals } = parseJobArgs(args, { ...STORE_OPTIONS, embedder: { type: 'string' }, detach: { type: 'boolean' } });
  if (values.help) {
    io.stdout.write(REINDEX_USAGE);
    return EXIT.ok;
  }
  requirePositionals(positionals, 0, 'options only');
  if (values.embedder === undefined || values.embedder.trim() === '') throw invalidArgument('--embedder <bundled|path|model id> is required');
  if (values.embedder === 'none') throw invalidArgument('--embedder none has nothing to embed with; give bundled, a model path or a model id');
  const store = storeChoice(values);
  if (values.detach) return detach(args, store, io);

  const spec = parseEmbedderSpec(values.embedder);
  const interrupt = new Interrupt(); // from here on, Ctrl-C ends the job with its summary
  let failure: Error | undefined;
  let counted: ReturnType<typeof countingEmbedder>;
  let memory: Awaited<ReturnType<typeof openStore>>;
  try {
    let embedder;
    try {
      embedder = await chooseEmbedder(spec);
    } catch (err) {
      throw new JobError('EMBEDDER_UNAVAILABLE', (err as Error).message);
    }
    counted = countingEmbedder(embedder!);
    memory = await openStore(store, { embedder: counted, onBackgroundError: (err) => (failure ??= err) });
  } catch (err) {
    interrupt.dispose();
    throw err;
  }
  const progress = new JobProgress('reindex', io.stderr, 'records');
  const started = Date.now();
  try {
    // The open started the search for records without this model's vector; the queue
    // grows while it runs and shrinks as vectors are stored.
    const whenDone = memory.whenEmbedded().then(
      () => 'done' as const,
      (err: Error) => {
        failure ??= err;
        return 'failed' as const;
      },
    );
    // Everything queued so far is stored or pending: the total is known once the search ends.
    let total = 0;
    progress.start(1, 0, describeEmbedderSpec(spec));
    let state: 'done' | 'failed' | 'waiting' = 'waiting';
    while (state === 'waiting' && !interrupt.requested) {
      state = await Promise.race([whenDone, new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), POLL_MS))]);
      const done = state === 'done' ? counted.texts() : counted.stored();
      // Done, the total is what was embedded. Before, it may count up to a flush's texts twice
      // (embedded, not yet stored, so still pending: see countingEmbedder).
      total = state === 'done' ? done : Math.max(total, done + memory.pendingEmbeddings());
      progress.update(done, describeEmbedderSpec(spec), total);
    }
    progress.stop();
    const pending = memory.pendingEmbeddings();
    const interrupted = state === 'waiting';
    const summary = {
      ok: state === 'done',
      command: 'reindex',
      model: counted.modelId,
      embedded: counted.texts(),
      pending: state === 'done' ? 0 : pending,
      interrupted,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
    if (state === 'failed') {
      io.stderr.write(`zeromem reindex: EMBEDDER_UNAVAILABLE: ${failure?.message}\n`);
      printSummary(io, { ...summary, error: { code: 'EMBEDDER_UNAVAILABLE', message: failure?.message } });
      return EXIT.failed;
    }
    if (interrupted) io.stderr.write('reindex: stopped; run the same command again to embed the rest\n');
    printSummary(io, summary);
    return interrupted ? EXIT.interrupted : EXIT.ok;
  } finally {
    progress.stop();
    interrupt.dispose();
    await memory.close();
  }
}

/**
 * The embedder, counting texts: `texts()` embedded so far, and `stored()`, those embedded
 * before the latest call began. The queue stores the vectors of the calls it made within
 * 250 ms together (core's embed queue, FLUSH_MS), so `stored()` may run ahead of what is
 * stored by the texts of one flush, and `stored() + pending` ahead of what this run embeds
 * by as many: seen with `--embedder minilm`, whose calls of 64 take a few hundred ms (the
 * static model's all finished between two polls). The bar's total only grows, and is set to
 * what was embedded at the end.
 */
function countingEmbedder(inner: Embedder): Embedder & { texts(): number; stored(): number } {
  let texts = 0;
  let stored = 0;
  return {
    modelId: inner.modelId,
    dimension: inner.dimension,
    ...(inner.fusionWeight !== undefined ? { fusionWeight: inner.fusionWeight } : {}),
    async embed(batch, kind) {
      stored = texts;
      const vectors = await inner.embed(batch, kind);
      texts += batch.length;
      return vectors;
    },
    texts: () => texts,
    stored: () => stored,
  };
}

/** Starts the same command without --detach as a detached process logging to a file. */
function detach(args: readonly string[], store: ReturnType<typeof storeChoice>, io: JobIo): number {
  const jobs = join(store.directory, 'jobs');
  mkdirSync(jobs, { recursive: true });
  const log = join(jobs, `reindex-${store.name}.log`);
  const out = openSync(log, 'w');
  const bin = process.argv[1];
  if (!bin) throw new JobError('UNSUPPORTED_ENVIRONMENT', 'cannot tell which script runs zeromem; run reindex without --detach');
  const rest = args.filter((arg) => arg !== '--detach');
  const child = spawn(process.execPath, [...process.execArgv, bin, 'reindex', ...rest, '--dir', store.directory, '--name', store.name], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  child.unref();
  printSummary(io, { ok: true, command: 'reindex', detached: true, pid: child.pid, log });
  return EXIT.ok;
}
