/**
 * A transcript records its session's end as `cost-state` last; a turn cut short by the exit
 * (SIGINT to `claude -p`) may write its interrupt entry after it, and the end still holds
 * (test/interop/gone-owners.test.ts shows Claude Code 2.1.328 writing it so). Anything else
 * after `cost-state` is a later run (a resume): not ended.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { factsOfOpenFile } from '../../src/core/sessions/transcript-facts.js';

const SESSION = '416cbb6f-0e7f-4cc0-94bb-510132229b40';
const prompt = (text: string) => ({
  type: 'user',
  sessionId: SESSION,
  cwd: '/w',
  timestamp: '2026-12-04T16:59:00.000Z',
  message: { role: 'user', content: text },
});
const interrupt = (text: string | unknown[]) => ({
  parentUuid: 'p',
  type: 'user',
  sessionId: SESSION,
  timestamp: '2026-12-04T16:59:05.000Z',
  message: { role: 'user', content: typeof text === 'string' ? [{ type: 'text', text }] : text },
});
const END = { type: 'cost-state', sessionId: SESSION, totalCostUSD: 0.0005 };

function endedOf(entries: readonly object[]): boolean | undefined {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-end-')), `${SESSION}.jsonl`);
  fs.writeFileSync(file, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    return factsOfOpenFile(fd, st.size, st.mtimeMs).ended;
  } finally {
    fs.closeSync(fd);
  }
}

describe("a transcript's end", () => {
  it('cost-state last: ended', () => {
    expect(endedOf([prompt('follow the plan'), END])).toBe(true);
  });

  it('cost-state, then the interrupt entries of the turn the exit cut short: ended', () => {
    expect(endedOf([prompt('follow the plan'), END, interrupt('[Request interrupted by user]')])).toBe(true);
    expect(endedOf([prompt('go'), END, interrupt('[Request interrupted by user for tool use]')])).toBe(true);
  });

  it('no cost-state, or a run after it: not ended', () => {
    expect(endedOf([prompt('follow the plan')])).toBe(false);
    expect(endedOf([prompt('follow the plan'), interrupt('[Request interrupted by user]')])).toBe(false);
    // A resume: a prompt after the end, then an interrupt (Esc) of its turn.
    expect(endedOf([prompt('go'), END, prompt('go on'), interrupt('[Request interrupted by user]')])).toBe(false);
  });

  it('a prompt that only quotes the interrupt note, or says more, is a prompt: not ended', () => {
    expect(endedOf([prompt('go'), END, interrupt('[Request interrupted by user] and then what?')])).toBe(false);
    expect(
      endedOf([
        prompt('go'),
        END,
        interrupt([
          { type: 'text', text: '[Request interrupted by user]' },
          { type: 'text', text: 'x' },
        ]),
      ]),
    ).toBe(false);
  });
});

describe("a session's last entry dates its end, never the file's time", () => {
  const at = Date.parse('2026-12-04T16:59:00.000Z');
  function lastEntryAt(entries: readonly object[], mtimeMs: number): number | undefined {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-end-')), `${SESSION}.jsonl`);
    fs.writeFileSync(file, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const fd = fs.openSync(file, 'r');
    try {
      return factsOfOpenFile(fd, fs.fstatSync(fd).size, mtimeMs).lastEntryAt;
    } finally {
      fs.closeSync(fd);
    }
  }

  it('the same bytes, touched later (a backup, touch): the same end; a quit after a while idle: its cost-state says when', () => {
    const crashed = [prompt('go')];
    expect(lastEntryAt(crashed, at + 1000)).toBe(at);
    expect(lastEntryAt(crashed, at + 86_400_000)).toBe(at);
    // Quit a minute after its last turn: the run began 10 s before it and lasted 70 s.
    const quit = [prompt('go'), { ...END, startTime: at - 10_000, totalDuration: 70_000 }];
    expect(lastEntryAt(quit, at + 86_400_000)).toBe(at + 60_000);
    // A cost-state that counts from before (restored from the session it went on from): the entries' time.
    expect(lastEntryAt([prompt('go'), { ...END, startTime: at - 50_000, totalDuration: 1000 }], at + 5000)).toBe(at);
  });

  it('a last entry longer than the usual windows (a large tool result) still dates it', () => {
    const big = { ...prompt('x'.repeat(100_000)), timestamp: '2026-12-04T17:00:00.000Z' };
    expect(lastEntryAt([prompt('go'), big], at + 86_400_000)).toBe(at + 60_000);
  });
});
