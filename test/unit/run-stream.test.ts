/**
 * Following a run's stream, one line and one event at a time: lines split on the new
 * bytes only and bounded in length; each Task-tool result applied once, giving that
 * step's events in order; the same final list as `tasks import` rebuilds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/core/runs/line-feed.js';
import { RunModel } from '../../src/core/runs/run-model.js';
import { streamEvents } from '../../src/core/snapshots/stream-events.js';
import { replayTaskCalls } from '../../src/core/snapshots/stream-tasks.js';
import { FIXTURES } from '../helpers/cli.js';
import { StreamScript } from '../helpers/stream-lines.js';

function split(chunks: Array<string | Buffer>, max?: number) {
  const lines: Array<[number, string]> = [];
  const warnings: string[] = [];
  const splitter = new LineSplitter({ onLine: (t, n) => lines.push([n, t]), onWarning: (w) => warnings.push(w) }, max);
  for (const c of chunks) splitter.push(typeof c === 'string' ? Buffer.from(c) : c);
  splitter.finish();
  return { lines, warnings };
}

describe('LineSplitter', () => {
  it('joins a line across chunks, even inside a UTF-8 character; strips a CR; a last line without newline counts', () => {
    const text = Buffer.from('{"a":"é"}\r\n{"b":2}\nlast');
    const cut = [text.subarray(0, 7), text.subarray(7, 8), text.subarray(8, 15), text.subarray(15)];
    expect(split(cut).lines).toEqual([
      [1, '{"a":"é"}'],
      [2, '{"b":2}'],
      [3, 'last'],
    ]);
  });

  it('skips a line over the limit with one warning, keeps counting, and never holds its bytes', () => {
    const long = 'x'.repeat(50);
    const r = split(['ok\n', long.slice(0, 20), long.slice(20), '\nnext\n', 'y'.repeat(11), '\n'], 10);
    expect(r.lines).toEqual([
      [1, 'ok'],
      [3, 'next'],
    ]);
    expect(r.warnings.map((w) => w.replace(/than \S+ MB/, 'than the limit'))).toEqual([
      'line 2 is longer than the limit: skipped',
      'line 4 is longer than the limit: skipped',
    ]);
  });

  it('a 32 MB line in 64 KB chunks is skipped in linear time, the line after it read', () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const lines: string[] = [];
    const warnings: string[] = [];
    const splitter = new LineSplitter({ onLine: (t) => lines.push(t), onWarning: (w) => warnings.push(w) });
    for (let i = 0; i < 512; i++) splitter.push(chunk);
    splitter.push(Buffer.from('\n{"type":"result"}\n'));
    expect(warnings).toEqual(['line 1 is longer than 16 MB: skipped']);
    expect(lines).toEqual(['{"type":"result"}']);
  });
});

describe('RunModel: each line applied once, its own events', () => {
  it('creates, updates, edges (both sides) and a delete are the events of their own lines, in order', () => {
    const s = new StreamScript()
      .init()
      .create('1', 'A')
      .create('2', 'B')
      .update('2', { addBlockedBy: ['1'] })
      .update('1', { status: 'in_progress', owner: 'me' })
      .update('1', { status: 'deleted' });
    const model = new RunModel();
    const perLine = s.lines.map((l, i) =>
      model.apply(JSON.parse(l) as Record<string, unknown>, i + 1).events.map((e) => {
        if (e.type === 'list-cleared') return 'cleared';
        const changes = e.type === 'updated' ? `(${Object.keys(e.changes).join(',')})` : '';
        return `${e.type} #${e.task.id}${changes}`;
      }),
    );
    expect(perLine.filter((e) => e.length > 0)).toEqual([
      ['created #1'],
      ['created #2'],
      ['updated #2(blockedBy)', 'updated #1(blocks)'],
      ['updated #1(status,owner)'],
      ['deleted #1', 'updated #2(blockedBy)'],
    ]);
    expect([...model.shown().values()]).toEqual([
      { id: '2', subject: 'B', description: 'do B', status: 'pending', blocks: [], blockedBy: [] },
    ]);
  });

  it('the recorded real run ends in the list `tasks import` rebuilds from the whole stream', () => {
    const lines = fs.readFileSync(path.join(FIXTURES, 'stream-json-tasks-v2.jsonl'), 'utf8').split('\n').filter(Boolean);
    const model = new RunModel();
    lines.forEach((l, i) => {
      model.apply(JSON.parse(l) as Record<string, unknown>, i + 1);
    });
    const replay = replayTaskCalls(streamEvents(lines.map((l, i) => ({ line: i + 1, value: JSON.parse(l) as Record<string, unknown> }))));
    const strip = (t: { id?: string; ref?: string; subject: string; status: string; blockedBy: readonly string[] }) => ({
      id: t.id ?? t.ref,
      subject: t.subject,
      status: t.status,
      blockedBy: [...t.blockedBy],
    });
    expect([...model.shown().values()].map(strip).sort((a, b) => Number(a.id) - Number(b.id))).toEqual(replay.items.map(strip));
  });

  it('a refused call changes nothing; an update of a task it never saw is passed over', () => {
    const model = new RunModel();
    const s = new StreamScript().init().update('9', { status: 'completed' });
    const effects = s.lines.map((l, i) => model.apply(JSON.parse(l) as Record<string, unknown>, i + 1));
    expect(effects.flatMap((e) => e.events)).toEqual([]);
    expect(effects.some((e) => e.acted)).toBe(false);
  });
});
