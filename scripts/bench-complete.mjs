// How long a TAB takes: `tasks __complete ...` on a list of 1,000 tasks, against bare
// `node -e 0`. Medians over many runs after a warm-up, the commands taken in turn so that
// the machine's noise falls on all of them alike, NODE_EXTRA_CA_CERTS unset for every
// one (it costs each Node start tens of milliseconds). Target: within 1.3x of bare Node.
// Wall time is what a person waits; CPU time (user + system of the process, taken as it
// exits by a tiny preloaded hook, the same for every command) is the steadier figure on
// a busy machine.
//
//   npm run bench:complete [-- --runs 60 --tasks 1000]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const RUNS = option('runs', 60);
const WARMUP = 5;
const TASKS = option('tasks', 1000);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'tasks.js');
const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-complete-'));
const list = path.join(config, 'tasks', 'bench');
fs.mkdirSync(list, { recursive: true });
const owners = ['researcher', 'implementer', 'reviewer', 'tester', 'writer'];
const statuses = ['pending', 'in_progress', 'completed'];
for (let i = 1; i <= TASKS; i++) {
  const task = {
    id: String(i),
    subject: `Task ${i}: refactor the module that handles part ${i} of the pipeline`,
    description: `Details for task ${i}. `.repeat(8),
    activeForm: `Working on task ${i}`,
    ...(i % 4 === 0 ? {} : { owner: owners[i % owners.length] }),
    status: statuses[i % statuses.length],
    blocks: i < TASKS ? [String(i + 1)] : [],
    blockedBy: i > 1 ? [String(i - 1)] : [],
  };
  fs.writeFileSync(path.join(list, `${i}.json`), JSON.stringify(task, null, 2));
}

const env = { ...process.env, CLAUDE_CONFIG_DIR: config };
delete env.NODE_EXTRA_CA_CERTS;
delete env.CLAUDE_CODE_TASK_LIST_ID;

const cases = [
  ['node -e 0 (baseline)', ['-e', '0']],
  ['subcommands: tasks <TAB>', [bin, '__complete', '']],
  ['options: tasks update 5 --<TAB>', [bin, '__complete', 'update', '5', '--']],
  ['statuses: tasks list --status <TAB>', [bin, '__complete', 'list', '--status', '']],
  ['lists: tasks --list <TAB>', [bin, '__complete', '--list', '']],
  ['ids by prefix: tasks get 12<TAB>', [bin, '__complete', 'get', '12']],
  ['every id: tasks update <TAB>', [bin, '__complete', 'update', '']],
  ['owners: tasks list --owner <TAB>', [bin, '__complete', 'list', '--owner', '']],
];

// A sanity check before timing: each case must answer with a directive line.
for (const [name, argv] of cases.slice(1)) {
  const r = spawnSync(process.execPath, argv, { env, encoding: 'utf8' });
  if (r.status !== 0 || !/^:\d+$/m.test(r.stdout)) throw new Error(`${name}: unexpected output ${JSON.stringify(r.stdout.slice(-200))}`);
}

// Preloaded into every command alike: prints the process's CPU time as it exits.
const hook = path.join(config, 'cpu-hook.cjs');
fs.writeFileSync(
  hook,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the hook's own source, a template literal in a string
  "process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, `\\ncpu ${(u.user + u.system) / 1000}\\n`); });\n",
);
const wall = cases.map(() => []);
const cpu = cases.map(() => []);
for (let round = 0; round < WARMUP + RUNS; round++) {
  cases.forEach(([, argv], i) => {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['-r', hook, ...argv], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (round < WARMUP) return;
    wall[i].push(elapsed);
    cpu[i].push(Number(/cpu (\S+)\s*$/.exec(r.stderr)?.[1] ?? Number.NaN));
  });
}
fs.rmSync(config, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const verdict = (ratio) => (ratio <= 1.3 ? 'ok ' : 'OVER');
console.log(
  `tasks __complete, ${TASKS}-task list, medians of ${RUNS} runs after ${WARMUP} warm-up rounds (node ${process.version}, load ${os.loadavg()[0].toFixed(1)})`,
);
console.log(`${''.padEnd(40)} ${'wall ms'.padStart(8)} ${'ratio'.padStart(6)}      ${'cpu ms'.padStart(7)} ${'ratio'.padStart(6)}`);
const baseWall = median(wall[0]);
const baseCpu = median(cpu[0]);
for (const [i, [name]] of cases.entries()) {
  const w = median(wall[i]);
  let line = `${name.padEnd(40)} ${w.toFixed(1).padStart(8)} ${(w / baseWall).toFixed(2).padStart(5)}x`;
  if (i > 0) line += ` ${verdict(w / baseWall)}`;
  else line += '     ';
  const c = median(cpu[i]);
  line += ` ${c.toFixed(1).padStart(7)} ${(c / baseCpu).toFixed(2).padStart(5)}x`;
  if (i > 0) line += ` ${verdict(c / baseCpu)}`;
  console.log(line);
}
console.log('target: within 1.3x of node -e 0');
