// The thread behind runInProcessSync (in-process.ts): runs `tasks` in process, one run at
// a time, from the build (dist/, as the binary's own modules; npm test builds first), and
// hands each result back through a shared word the test's thread waits on (the id of the
// run last answered). Plain
// JavaScript: a worker thread loads it with Node alone, without vitest's transform.
import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { run } from '../../dist/cli/run.js';
import { IO } from '../../dist/cli/runtime/io.js';

const { signal, port } = workerData;
const done = new Int32Array(signal);

function capture() {
  const chunks = [];
  return { isTTY: false, write: (text) => void chunks.push(text), text: () => chunks.join('') };
}

/** The run being answered (undefined: none): each run gets one answer. */
let current;

function reply(message) {
  const id = current;
  current = undefined;
  port.postMessage({ ...message, id });
  if (id === undefined) return;
  Atomics.store(done, 0, id);
  Atomics.notify(done, 0);
}

// A run that throws past run() (it never should) is reported, not left waiting; one thrown
// after its run's answer goes back unasked for, and the waiting side says it.
process.on('uncaughtException', (err) => reply({ crash: String(err?.stack ?? err) }));
process.on('unhandledRejection', (err) => reply({ crash: String(err?.stack ?? err) }));

/** Runs asked for and not yet started: one runs at a time, in the order asked. */
const queue = [];
let running = false;

async function runOne({ id, args, env, cwd, input }) {
  current = id;
  try {
    const stdout = capture();
    const stderr = capture();
    const stdin = { isTTY: false, stream: () => Readable.from([input]) };
    const io = new IO({ stdout, stderr, stdin }, env);
    const code = await run(['node', 'tasks', ...args], io, env, { cwd });
    if (current === id) reply({ code, stdout: stdout.text(), stderr: stderr.text() });
  } catch (err) {
    if (current === id) reply({ crash: String(err?.stack ?? err) });
  }
}

parentPort.on('message', async (message) => {
  queue.push(message);
  if (running) return;
  running = true;
  while (queue.length > 0) await runOne(queue.shift());
  running = false;
});
