// Paired runs for the benchmarks: each run of what is measured just after a run of what it
// is compared with, so that a shared, noisy machine moves both alike; the median of the
// ratios, for wall time and for CPU time (a preloaded hook reports it at exit: on a loaded
// machine, CPU time moves less than wall time).
import fs from 'node:fs';
import path from 'node:path';

/** Writes the hook into `dir`: `node -r <it>` prints "cpu <ms>" on stderr at exit. */
export function cpuHookIn(dir) {
  const file = path.join(dir, 'cpu.cjs');
  fs.writeFileSync(
    file,
    "process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, '\\ncpu ' + (u.user + u.system) / 1000 + '\\n'); });\n",
  );
  return file;
}

/** The CPU ms the hook reported in a run's stderr. */
export const cpuOf = (stderr) => Number(/cpu (\S+)\s*$/.exec(stderr)?.[1]);

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** `a` and `base` each return { wall, cpu } of one run; each `a` runs just after a `base`. */
export function paired(a, base, { runs, warmup }) {
  for (let i = 0; i < warmup; i++) {
    base();
    a();
  }
  const rows = [];
  for (let i = 0; i < runs; i++) {
    const b = base();
    rows.push({ a: a(), b });
  }
  return {
    ms: median(rows.map((r) => r.a.wall)),
    baseMs: median(rows.map((r) => r.b.wall)),
    ratio: median(rows.map((r) => r.a.wall / r.b.wall)),
    cpuRatio: median(rows.map((r) => r.a.cpu / r.b.cpu)),
  };
}
