import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../src/core/cache/file-stamp.js';
import { FIXTURES, run, tempConfig } from '../helpers/cli.js';
import { writeTranscript } from '../helpers/session-files.mjs';

/**
 * A named list (CLAUDE_CODE_TASK_LIST_ID) whose task has been in progress for two hours:
 * stalled, unless a session tied to it by its transcript may still be at work. Only
 * such sessions are looked for (transcripts written in the last ten minutes, or named by a
 * live-session file): a session that ended long ago, whatever it showed, is not read.
 */
const SESSION = '5b2e8d11-7c1a-4f3e-9d20-1a2b3c4d5e6f';
const HOUR = 3_600_000;

function world(transcriptAge: number, ended: boolean) {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'work', 'app');
  fs.mkdirSync(cwd, { recursive: true });
  const list = path.join(config, 'tasks', 'shared');
  fs.cpSync(path.join(FIXTURES, 'sessions', 'shared-list'), list, { recursive: true });
  const end = Date.now() - transcriptAge;
  const file = writeTranscript(config, { sessionId: SESSION, cwd, prompt: 'build the parser', source: 'tasks', start: end - HOUR, end });
  if (!ended) {
    // Still being written: its last entry is not the cost-state that a session's end writes.
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    fs.writeFileSync(file, `${lines.filter((l) => !l.startsWith('{"type":"cost-state"')).join('\n')}\n`);
    fs.utimesSync(file, end / 1000, end / 1000);
  }
  // Task #10 (the session's, in progress) unchanged for two hours; the list's other files too.
  const old = (Date.now() - 2 * HOUR) / 1000;
  for (const name of fs.readdirSync(list)) fs.utimesSync(path.join(list, name), old, old);
  return { config, cwd };
}

function stalled(w: { config: string; cwd: string }): string[] {
  // The binary: the persistent cache is the built bundle's alone.
  const r = run(w.config, ['-l', 'shared', 'list', '--stalled', '--json'], { cwd: w.cwd });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ id: string }>).map((t) => t.id);
}

describe('a named list: stalled work and the sessions that may be at work', () => {
  it('a session that ended two hours ago is at work no more: the task is stalled', () => {
    expect(stalled(world(2 * HOUR, true))).toEqual(['10']);
  });

  it('a session tied to it whose transcript is being written (five minutes ago, not ended): not stalled', () => {
    expect(stalled(world(5 * 60_000, false))).toEqual([]);
  });

  it('the same session, its transcript last written an hour ago without an end: stalled', () => {
    expect(stalled(world(HOUR, false))).toEqual(['10']);
  });
});

/**
 * With the evidence an earlier `lists` kept, a stalled check looks only at the transcripts
 * that can be of a session at work on the list now (sessions/list-sessions.ts): those the
 * evidence tied to it, and any made since. Both kinds, written in the last ten minutes
 * without an end, keep the list's work from being stalled.
 */
describe('a named list, with evidence kept by an earlier lists', () => {
  const OTHER = '5b2e8d11-7c1a-4f3e-9d20-1a2b3c4d5e70';

  function kept(transcriptAge: number) {
    const w = world(transcriptAge, false);
    // What `lists` reads must have settled to be kept (cache/file-stamp.ts): its clock
    // ($TASKS_NOW) is set past the settling time, as if it had been waited out.
    // The binary: the persistent cache is the built bundle's alone.
    const r = run(w.config, ['lists', '--json'], { cwd: w.cwd, env: { TASKS_NOW: String(Date.now() + SETTLE_MS + 300) } });
    expect(r.code, r.stderr).toBe(0);
    const row = (JSON.parse(r.stdout) as Array<{ id: string; sessions: Array<{ sessionId: string }> }>).find((l) => l.id === 'shared');
    expect(row?.sessions.map((s) => s.sessionId)).toEqual([SESSION]);
    return w;
  }

  it('a session the evidence tied to the list, its transcript written again since: not stalled', () => {
    const w = kept(HOUR);
    expect(stalled(w)).toEqual(['10']);
    const file = path.join(w.config, 'projects', w.cwd.replace(/[^a-zA-Z0-9]/g, '-'), `${SESSION}.jsonl`);
    fs.appendFileSync(file, `${JSON.stringify({ type: 'system', sessionId: SESSION, timestamp: new Date().toISOString() })}\n`);
    expect(stalled(w)).toEqual([]);
  });

  it('a session started since, on the list, its transcript being written: not stalled', () => {
    const w = kept(2 * HOUR);
    expect(stalled(w)).toEqual(['10']);
    const end = Date.now() - 5 * 60_000;
    const file = writeTranscript(w.config, { sessionId: OTHER, cwd: w.cwd, prompt: 'go on', source: 'tasks', start: end - HOUR, end });
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    fs.writeFileSync(file, `${lines.filter((l) => !l.startsWith('{"type":"cost-state"')).join('\n')}\n`);
    fs.utimesSync(file, end / 1000, end / 1000);
    expect(stalled(w)).toEqual([]);
  });
});
