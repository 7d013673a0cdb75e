/** A process's RSS and CPU time, read from /proc (Linux), sampled while some work runs. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface ProcessSample {
  /** The highest RSS seen. */
  readonly rssMaxMiB: number;
  /** User and system CPU time used, in clock ticks. */
  readonly cpuTicks: number;
}

/** Clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
export function clockTicksPerSecond(): number {
  return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
}

export function procStatus(pid: number): { rssMiB: number; cpuTicks: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  // /proc/<pid>/stat: the command (field 2) is in parentheses and may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 (utime, stime) are at 11 and 12 after the command.
  const cpuTicks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return { rssMiB: rss ? Number(rss) / 1024 : Number.NaN, cpuTicks };
}

/** Samples a process's RSS (its maximum) and CPU time while `work` runs. */
export async function watched<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; sample: ProcessSample; elapsedS: number }> {
  const start = procStatus(pid);
  let rssMaxMiB = start.rssMiB;
  const timer = setInterval(() => {
    rssMaxMiB = Math.max(rssMaxMiB, procStatus(pid).rssMiB);
  }, 200);
  const began = performance.now();
  try {
    const value = await work();
    const elapsedS = (performance.now() - began) / 1000;
    const end = procStatus(pid);
    return { value, sample: { rssMaxMiB: Math.max(rssMaxMiB, end.rssMiB), cpuTicks: end.cpuTicks - start.cpuTicks }, elapsedS };
  } finally {
    clearInterval(timer);
  }
}
