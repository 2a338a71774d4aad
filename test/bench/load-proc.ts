/**
 * CPU time and resident memory of processes, read from Linux's /proc (the load benchmark,
 * relay-load.ts, samples every server process it starts). A process tree (PostgreSQL's
 * postmaster and its backends) is summed.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`; 100 on Linux everywhere it matters). */
const TICKS_PER_SECOND = 100;

/** One reading of a process (or a tree): CPU seconds used so far and resident memory now. */
export interface ProcReading {
  at: number;
  cpuSeconds: number;
  rssBytes: number;
  /** CPU seconds of each process read. */
  perPid: ReadonlyMap<number, number>;
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** utime + stime of one process, in seconds (fields 14 and 15; 12 and 13 after the name). */
function cpuSeconds(fields: string[]): number {
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The process `pid` and, with `tree`, its direct children (PostgreSQL's backends), each by pid. */
export function readProc(pid: number, tree = false): ProcReading {
  const at = performance.now();
  const perPid = new Map<number, number>();
  let rss = 0;
  const own = statFields(pid);
  if (own) {
    perPid.set(pid, cpuSeconds(own));
    rss += rssBytes(pid);
  }
  if (tree) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const fields = statFields(Number(entry));
      // Field 4 (ppid) is the second after the name.
      if (fields && Number(fields[1]) === pid) {
        perPid.set(Number(entry), cpuSeconds(fields));
        rss += rssBytes(Number(entry));
      }
    }
  }
  return { at, cpuSeconds: [...perPid.values()].reduce((a, b) => a + b, 0), rssBytes: rss, perPid };
}

/**
 * CPU use between two readings, in percent of one core: per process alive at the second
 * (one that started in between counts whole; the time of one that ended in between is lost).
 */
export function cpuPercent(from: ProcReading, to: ProcReading): number {
  const seconds = (to.at - from.at) / 1000;
  let used = 0;
  for (const [pid, cpu] of to.perPid) used += cpu - (from.perPid.get(pid) ?? 0);
  return seconds > 0 ? Math.round((used / seconds) * 1000) / 10 : 0;
}

/** Samples processes once a second: the largest RSS seen and the readings at start and stop. */
export class ProcSampler {
  private readonly peak = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private first = new Map<string, ProcReading>();

  constructor(private readonly targets: ReadonlyArray<{ name: string; pid: number; tree?: boolean }>) {}

  start(): void {
    this.first = new Map(this.targets.map((t) => [t.name, readProc(t.pid, t.tree)]));
    this.peak.clear();
    this.sample();
    this.timer = setInterval(() => this.sample(), 1000);
  }

  private sample(): void {
    for (const t of this.targets) {
      const rss = readProc(t.pid, t.tree).rssBytes;
      this.peak.set(t.name, Math.max(this.peak.get(t.name) ?? 0, rss));
    }
  }

  /** Per process: CPU % of one core since start, RSS at the end and the peak. */
  stop(): Record<string, { cpuPercent: number; rssMB: number; peakRssMB: number }> {
    clearInterval(this.timer);
    const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
    const out: Record<string, { cpuPercent: number; rssMB: number; peakRssMB: number }> = {};
    for (const t of this.targets) {
      const end = readProc(t.pid, t.tree);
      out[t.name] = { cpuPercent: cpuPercent(this.first.get(t.name)!, end), rssMB: mb(end.rssBytes), peakRssMB: mb(Math.max(this.peak.get(t.name) ?? 0, end.rssBytes)) };
    }
    return out;
  }
}
