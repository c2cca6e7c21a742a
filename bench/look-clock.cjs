// Preloaded into `tasks notify` by bench/notify-looks.mjs (NODE_OPTIONS=--require): at the
// start of each round of looks (the timer of $TASKS_NOTIFY_TICK_MS), appends the process's
// CPU time so far (user + system, µs), resident memory and bytes read (/proc/self/io's
// rchar: every read, the page cache's included) to $BENCH_LOOKS_FILE, so that each round's
// cost is the difference between two lines.
'use strict';
const fs = require('node:fs');
const file = process.env.BENCH_LOOKS_FILE;
const tick = Number(process.env.TASKS_NOTIFY_TICK_MS);
if (file && tick > 0) {
  const original = globalThis.setTimeout;
  globalThis.setTimeout = function setTimeout(fn, ms, ...rest) {
    if (ms !== tick || typeof fn !== 'function') return original(fn, ms, ...rest);
    return original(
      (...a) => {
        const cpu = process.cpuUsage();
        const read = /rchar:\s*(\d+)/.exec(fs.readFileSync('/proc/self/io', 'latin1'))?.[1] ?? '0';
        fs.appendFileSync(file, `${cpu.user + cpu.system} ${process.memoryUsage().rss} ${read}\n`);
        return fn(...a);
      },
      ms,
      ...rest,
    );
  };
}
