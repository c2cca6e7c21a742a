/**
 * `watch --stream -` after a run's result, with its input still open: a process the agent
 * started in the background and left holding its output (a dev server, a `sleep &`) must
 * neither keep the gate waiting until that process ends nor meet a closed pipe when it
 * writes; a script of the pipeline that starts another session after the first result
 * must still be waited for. Real processes, a real shell pipeline, the built binary.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempConfig } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { writeTranscript } from '../helpers/session-files.mjs';
import { StreamScript } from '../helpers/stream-lines.js';

/** How long the left-behind process holds the output before it writes its last line and exits. */
const LEFTOVER_S = 14;

interface Piped {
  code: number;
  seconds: number;
  events: Record<string, unknown>[];
  notes: Array<{ code: string; [k: string]: unknown }>;
}

/**
 * `bash -c '<producer> | tasks watch --stream - --json ...'`, timed to the watch's end.
 * The leftover, if any, writes `late` to the output after LEFTOVER_S and then records
 * that its write went through in `<config>/leftover-wrote`.
 */
function piped(config: string, producer: string, args: string, substitute?: string): Piped {
  const watch = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} watch --stream - --json ${args}`;
  const line = substitute === undefined ? `${producer} | ${watch}` : `${watch} < <${substitute}`;
  const script = `start=$(date +%s%N)\n${line} > events.jsonl 2> notes.jsonl\ncode=$?\necho "EXIT=$code MS=$((($(date +%s%N) - start) / 1000000))"`;
  const r = spawnSync('bash', ['-c', script], { env: baseEnv(config), cwd: config, encoding: 'utf8', timeout: 60_000 });
  const code = Number(/EXIT=(\d+)/.exec(r.stdout)?.[1] ?? -1);
  const seconds = Number(/MS=(\d+)/.exec(r.stdout)?.[1] ?? Number.NaN) / 1000;
  const notes = parseNdjson(fs.readFileSync(path.join(config, 'notes.jsonl'), 'utf8'))
    .map((l) => (l.note ?? l.warning ?? l.error) as { code: string })
    .filter(Boolean);
  return { code, seconds, events: parseNdjson(fs.readFileSync(path.join(config, 'events.jsonl'), 'utf8')), notes };
}

/** `tasks watch --stream - ... < <(producer)`: the producer is the watch's own child. */
function substituted(config: string, producer: string, args: string): Piped {
  return piped(config, '', args, producer);
}

/** An agent: prints its stream, leaves a process holding its output, exits. */
function agentWithLeftover(config: string, lines: readonly string[]): string {
  const stream = path.join(config, 'stream.jsonl');
  fs.writeFileSync(stream, `${lines.join('\n')}\n`);
  const wrote = path.join(config, 'leftover-wrote');
  return `(cat ${JSON.stringify(stream)}; (sleep ${LEFTOVER_S}; echo late || exit 9; echo yes > ${JSON.stringify(wrote)}) & exit 0)`;
}

async function leftoverWrote(config: string): Promise<boolean> {
  const file = path.join(config, 'leftover-wrote');
  for (let waited = 0; waited < (LEFTOVER_S + 10) * 1000 && !fs.existsSync(file); waited += 250)
    await new Promise((r) => setTimeout(r, 250));
  return fs.existsSync(file);
}

const done = (session?: string) =>
  new StreamScript(session).init().create('1', 'Fix').update('1', { status: 'in_progress' }).update('1', { status: 'completed' });

describe.runIf(process.platform === 'linux')('watch --stream - and what the agent leaves holding its output', () => {
  it('a session unknown here: the verdict at the result, the input handed to a reader of its own, the leftover writes on', async () => {
    const config = tempConfig();
    const r = piped(config, agentWithLeftover(config, done().end().lines), '--until all-completed --timeout 60s');
    expect(r.code, JSON.stringify(r.notes)).toBe(0);
    expect(r.events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: true });
    // Not held until the leftover ends (LEFTOVER_S), nor until the deadline.
    expect(r.seconds).toBeLessThan(LEFTOVER_S - 4);
    const handed = r.notes.find((n) => n.code === 'input_handed_off') as { pid: number; holders: number[] } | undefined;
    expect(handed, JSON.stringify(r.notes)).toBeDefined();
    expect(handed?.holders.length).toBeGreaterThan(0);
    // Its late write went through: it never met a closed pipe.
    expect(await leftoverWrote(config)).toBe(true);
  });

  it('a session known here and over: the run ends with its result though the input stays open (input_left_open)', async () => {
    const config = tempConfig();
    const session = 'a1b2c3d4-0000-4000-8000-00000000000a';
    writeTranscript(config, { sessionId: session, cwd: config });
    const r = piped(config, agentWithLeftover(config, done(session).end().lines), '--until all-completed --timeout 60s');
    expect(r.code, JSON.stringify(r.notes)).toBe(0);
    expect(r.events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: true });
    expect(r.seconds).toBeLessThan(LEFTOVER_S - 4);
    expect(
      r.notes.find((n) => n.code === 'input_left_open'),
      JSON.stringify(r.notes),
    ).toMatchObject({ pids: expect.arrayContaining([expect.any(Number)]) });
    expect(await leftoverWrote(config)).toBe(true);
  });

  for (const form of ['pipe', 'process substitution'] as const)
    it(`a script's next session after the first result is still waited for (${form}): judged at the end of the last`, () => {
      const config = tempConfig();
      const first = 'a1b2c3d4-0000-4000-8000-00000000000b';
      const second = 'a1b2c3d4-0000-4000-8000-00000000000c';
      writeTranscript(config, { sessionId: first, cwd: config });
      // The first session completes #1; the script's next one (seconds later) plans #2 and ends with it open.
      const one = path.join(config, 'one.jsonl');
      const two = path.join(config, 'two.jsonl');
      fs.writeFileSync(one, `${done(first).end().lines.join('\n')}\n`);
      fs.writeFileSync(two, `${new StreamScript(second).init().create('2', 'Verify').end().lines.join('\n')}\n`);
      const script = `(cat ${JSON.stringify(one)}; sleep 6; cat ${JSON.stringify(two)})`;
      // `tasks watch ... < <(script)` makes the script a child of the watch itself.
      const r =
        form === 'pipe'
          ? piped(config, script, '--until all-completed --timeout 60s')
          : substituted(config, script, '--until all-completed --timeout 60s');
      expect(r.code, JSON.stringify(r.notes)).toBe(6);
      expect(r.notes.map((n) => n.code)).toContain('run_went_on');
      expect(r.notes.map((n) => n.code)).not.toContain('input_left_open');
      expect(r.events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: false, counts: { total: 2, completed: 1 } });
      expect(r.seconds).toBeGreaterThan(6);
    });
});
