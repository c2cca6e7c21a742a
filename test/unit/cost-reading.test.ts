import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PersistentCache } from '../../src/core/cache/persistent-cache.js';
import { loadPrices, priceFilePath } from '../../src/core/cost/price-file.js';
import { builtInTable, costOf, priceOf } from '../../src/core/cost/prices.js';
import { placeOpenRun, USAGE_SCAN, usageOf } from '../../src/core/cost/usage-scan.js';
import { UsageStore } from '../../src/core/cost/usage-store.js';
import { bucketKey, noTokens } from '../../src/core/cost/usage-tally.js';
import { TranscriptStore } from '../../src/core/sessions/transcript-store.js';
import { FIXTURES } from '../helpers/cli.js';

const SESSION = '11111111-2222-4333-8444-555555555555';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cost-'));
  dirs.push(d);
  return d;
}

const usage = (input: number, output: number, extra: Record<string, unknown> = {}) => ({
  input_tokens: input,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: output,
  cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
  speed: 'standard',
  ...extra,
});
function assistant(id: string, t: string, blocks: unknown[], u: unknown, more: Record<string, unknown> = {}) {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    message: { id, type: 'message', role: 'assistant', model: 'claude-opus-5-5', content: blocks, usage: u },
    type: 'assistant',
    uuid: `u-${id}-${t}`,
    timestamp: t,
    sessionId: SESSION,
    ...more,
  });
}
function result(useId: string, t: string, toolUseResult: unknown) {
  return JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: useId, content: 'ok' }] },
    toolUseResult,
    timestamp: t,
    sessionId: SESSION,
  });
}
const update = (id: string, input: Record<string, unknown>) => ({ type: 'tool_use', id, name: 'TaskUpdate', input });

function transcript(dir: string, lines: string[]): string {
  const file = path.join(dir, 'projects', '-work-app', `${SESSION}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe("a transcript's usage", () => {
  it("counts a message written as several entries once, skips a fork's copies and <synthetic>, and reads status changes at their results", () => {
    const dir = temp();
    const file = transcript(dir, [
      assistant(
        'msg_1',
        '2026-12-01T10:00:01.000Z',
        [{ type: 'tool_use', id: 't1', name: 'TaskCreate', input: { subject: 'A' } }],
        usage(100, 1),
      ),
      assistant(
        'msg_1',
        '2026-12-01T10:00:01.500Z',
        [{ type: 'tool_use', id: 't2', name: 'TaskCreate', input: { subject: 'B' } }],
        usage(100, 50),
      ),
      result('t1', '2026-12-01T10:00:02.000Z', { task: { id: '1', subject: 'A' } }),
      assistant('msg_2', '2026-12-01T10:00:03.000Z', [update('t3', { taskId: '1', status: 'in_progress' })], usage(7, 3)),
      result('t3', '2026-12-01T10:00:04.000Z', { success: true, taskId: '1', updatedFields: ['status'] }),
      assistant('msg_p', '2026-12-01T09:00:00.000Z', [update('tp', { taskId: '9', status: 'in_progress' })], usage(999, 999), {
        requestSessionId: 'aaaaaaaa-2222-4333-8444-555555555555',
      }),
      result('tp', '2026-12-01T09:00:01.000Z', { success: true, taskId: '9', updatedFields: ['status'] }),
      JSON.stringify({
        type: 'assistant',
        message: { id: 'syn', model: '<synthetic>', content: [{ type: 'text', text: 'No response requested.' }], usage: usage(0, 0) },
        timestamp: '2026-12-01T10:00:05.000Z',
        sessionId: SESSION,
      }),
      assistant(
        'msg_3',
        '2026-12-01T10:00:06.000Z',
        [update('t4', { taskId: '1', status: 'completed' })],
        usage(11, 13, { speed: 'fast' }),
      ),
      result('t4', '2026-12-01T10:00:07.000Z', { success: false, taskId: '1', error: 'blocked by hook' }),
    ]);
    const store = new TranscriptStore(path.join(dir, 'projects'), undefined);
    const read = usageOf(store.scan(file, USAGE_SCAN));
    expect(read.messages.map((m) => [new Date(m.at).toISOString().slice(17, 23), m.tokens.input, m.tokens.output])).toEqual([
      ['01.000', 100, 50],
      ['03.000', 7, 3],
      ['06.000', 11, 13],
    ]);
    expect(read.messages[2]?.bucket).toBe(bucketKey({ model: 'claude-opus-5-5', fast: true, long: false }));
    // Only the successful update counts, at its result; the failed completion changes nothing.
    expect(read.marks).toEqual([{ at: Date.parse('2026-12-01T10:00:04.000Z'), task: '1', status: 'in_progress' }]);
    expect(read.subjects.map((x) => [x.task, x.subject])).toEqual([['1', 'A']]);
  });

  it('keeps its reading: a grown transcript is read from where it stopped, and the kept state says what a fresh read says', () => {
    const dir = temp();
    const lines = [assistant('msg_1', '2026-12-01T10:00:01.000Z', [update('t1', { taskId: '1', status: 'in_progress' })], usage(5, 5))];
    const file = transcript(dir, lines);
    // Settled, so that the kept state is trusted.
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    const cacheDir = path.join(dir, 'cache');
    const first = new UsageStore(dir, new PersistentCache({ dir: cacheDir, owner: dir, build: 't' }), Date.now, 'L');
    expect(first.usage(file).messages).toHaveLength(1);
    first.retainRead();
    (first as unknown as { cache: PersistentCache }).cache.save();
    fs.appendFileSync(file, `${result('t1', '2026-12-01T10:00:02.000Z', { success: true, taskId: '1', updatedFields: ['status'] })}\n`);
    fs.appendFileSync(file, `${assistant('msg_2', '2026-12-01T10:00:03.000Z', [], usage(8, 8))}\n`);
    const second = new UsageStore(dir, new PersistentCache({ dir: cacheDir, owner: dir, build: 't' }), Date.now, 'L');
    expect(second.unreadBytes([file], [])).toBeLessThan(fs.statSync(file).size);
    expect(second.unreadBytes([file], [])).toBeGreaterThan(0);
    const kept = second.usage(file);
    const fresh = usageOf(new TranscriptStore(path.join(dir, 'projects'), undefined).scan(file, USAGE_SCAN));
    expect(kept.messages).toEqual(fresh.messages);
    expect(kept.marks).toEqual(fresh.marks);
    expect(kept.messages).toHaveLength(2);
    expect(kept.marks).toHaveLength(1);
  });

  it("reads where a session's process ended and where its resumed run began, as Claude Code 2.1.328 wrote them", () => {
    // A session, then `--resume` of it: one transcript, each run closed by a `cost-state` entry (fork/README.md).
    const file = path.join(FIXTURES, 'fork', 'projects', '-tmp-hx-work', 'b662d4b4-5673-4d15-a9d3-6dd961fcbf2e.jsonl');
    const read = usageOf(new TranscriptStore(path.dirname(path.dirname(file)), undefined).scan(file, USAGE_SCAN));
    // The first run's last entry (its closing message), then the resumed run's queued prompt; the second run's end has no run after it.
    expect(read.gaps).toEqual([
      { from: Date.parse('2026-12-01T15:31:53.700Z'), to: Date.parse('2026-12-01T15:32:10.727Z') },
      { from: Date.parse('2026-12-01T15:32:10.837Z'), to: Number.POSITIVE_INFINITY },
    ]);
    // Two cost-state entries with no entry between make one end; a run with no time read yet makes none.
    const state = USAGE_SCAN.start();
    USAGE_SCAN.feed(state, JSON.stringify({ type: 'cost-state', sessionId: SESSION, totalCostUSD: 0 }));
    USAGE_SCAN.feed(state, assistant('m1', '2026-12-01T10:00:01.000Z', [], usage(1, 1)));
    USAGE_SCAN.feed(state, JSON.stringify({ type: 'cost-state', sessionId: SESSION, totalCostUSD: 0 }));
    USAGE_SCAN.feed(state, JSON.stringify({ type: 'cost-state', sessionId: SESSION, totalCostUSD: 0 }));
    USAGE_SCAN.feed(
      state,
      JSON.stringify({ type: 'queue-operation', operation: 'enqueue', timestamp: '2026-12-01T10:00:09.000Z', sessionId: SESSION }),
    );
    expect(usageOf(state).gaps).toEqual([{ from: Date.parse('2026-12-01T10:00:01.000Z'), to: Date.parse('2026-12-01T10:00:09.000Z') }]);
    const saved = JSON.parse(JSON.stringify(USAGE_SCAN.save(state)));
    expect(USAGE_SCAN.load(saved)).toEqual(state);
  });

  it('places a killed process’s end by the resumed run’s cost-state, also when the transcript is read in two parts', () => {
    // A run killed with SIGKILL, resumed 12 s later (crash-resume/README.md).
    const file = path.join(FIXTURES, 'crash-resume', 'projects', '-tmp-cc-work', '2d82cedd-9fd0-4b78-84aa-257575bb6b81.jsonl');
    // The lines the transcript store feeds it: those with one of its needles.
    const lines = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .filter((l) => USAGE_SCAN.needles.some((n) => l.includes(n)));
    const at = (t: string) => Date.parse(`2026-12-03T${t}Z`);
    const whole = USAGE_SCAN.start();
    for (const line of lines) USAGE_SCAN.feed(whole, line);
    // The killed process's last entry read (its model's message), then the resumed run's queued prompt.
    expect(usageOf(whole).gaps).toEqual([
      { from: at('11:05:18.425'), to: at('11:05:31.652') },
      { from: at('11:05:31.830'), to: Number.POSITIVE_INFINITY },
    ]);
    expect(usageOf(whole).unsure).toEqual([]);
    // Read up to the resumed run's last entry, kept, then the rest: the same answer.
    const cut = lines.findIndex((l) => l.startsWith('{"type":"cost-state"'));
    const part = USAGE_SCAN.start();
    for (const line of lines.slice(0, cut)) USAGE_SCAN.feed(part, line);
    // Before its cost-state: the silence before a new request chain, unsure.
    expect(usageOf(part).open).toEqual([{ from: at('11:05:18.425'), to: at('11:05:31.652'), restart: true }]);
    expect(usageOf(part).unsure).toEqual([]);
    expect(usageOf(part).gaps).toEqual([]);
    const again = USAGE_SCAN.load(JSON.parse(JSON.stringify(USAGE_SCAN.save(part)))) as typeof part;
    expect(again).toEqual(part);
    for (const line of lines.slice(cut)) USAGE_SCAN.feed(again, line);
    expect(usageOf(again)).toEqual(usageOf(whole));
  });

  it("places a crashed process's end by the start of the process running now, else keeps a new chain's silence unsure", () => {
    const open = [
      { from: 100, to: 5000, restart: true },
      { from: 6000, to: 9000, restart: true },
      { from: 9500, to: 12_000, restart: false },
    ];
    // Started at 4000: the first silence held that start; the others were its own pauses.
    expect(placeOpenRun(open, 4000)).toEqual({ gaps: [{ from: 100, to: 5000 }], unsure: [] });
    // Started at 7000: the second held it; the first, before it, began a chain too and stays unsure.
    expect(placeOpenRun(open, 7000)).toEqual({ gaps: [{ from: 6000, to: 9000 }], unsure: [{ from: 100, to: 5000 }] });
    // No start known: every silence after which a new chain began is unsure; a pause that went on with the chain is not.
    expect(placeOpenRun(open, undefined)).toEqual({
      gaps: [],
      unsure: [
        { from: 100, to: 5000 },
        { from: 6000, to: 9000 },
      ],
    });
  });

  it('a saved state loads back as it was', () => {
    const state = USAGE_SCAN.start();
    USAGE_SCAN.feed(state, assistant('m', '2026-12-01T10:00:01.000Z', [update('t', { taskId: '3', status: 'in_progress' })], usage(1, 2)));
    const saved = JSON.parse(JSON.stringify(USAGE_SCAN.save(state)));
    expect(USAGE_SCAN.load(saved)).toEqual(state);
    expect(USAGE_SCAN.load({ v: ['x'], m: [1, 5, 0, 0, 0, 0, 0, 0], i: [], c: [], k: [], s: [] })).toBeUndefined();
  });
});

describe('prices', () => {
  const table = builtInTable();
  const tokens = (input: number, output: number, cacheRead = 0, cacheCreation = 0, cacheCreation1h = 0) => ({
    ...noTokens(),
    input,
    output,
    cacheRead,
    cacheCreation,
    cacheCreation1h,
  });
  const bucket = (model: string, fast = false, long = false) => bucketKey({ model, fast, long });

  it('prices a model by its id or its dated id, per kind of token', () => {
    expect(priceOf(table, 'claude-opus-4-5-20251101')).toEqual(priceOf(table, 'claude-opus-4-5'));
    // 1M input at $4, 1M output at $20, 1M cache reads at $0.20, 1M 5-minute writes at $5, 1M 1-hour writes at $8.
    const c = costOf(table, new Map([[bucket('claude-opus-5-5'), tokens(1e6, 1e6, 1e6, 2e6, 1e6)]]));
    expect(c.usd).toBeCloseTo(4 + 20 + 0.2 + 5 + 8, 10);
  });

  it('gives no cost (null), never a guess, for a model it does not know, fast mode, or an unconfirmed long prompt', () => {
    expect(costOf(table, new Map([[bucket('claude-mock'), tokens(10, 10)]]))).toEqual({
      usd: null,
      unpriced: ['claude-mock'],
      unpricedParts: ['claude-mock'],
    });
    expect(costOf(table, new Map([[bucket('claude-opus-5-5', true), tokens(10, 10)]])).usd).toBeNull();
    expect(costOf(table, new Map([[bucket('claude-opus-5-5', true), tokens(10, 10)]])).unpricedParts).toEqual([
      'claude-opus-5-5 (fast mode)',
    ]);
    expect(costOf(table, new Map([[bucket('claude-sonnet-4-20250514', false, true), tokens(10, 10)]])).usd).toBeNull();
    expect(costOf(table, new Map([[bucket('claude-opus-5-5', false, true), tokens(10, 10)]])).usd).not.toBeNull();
    expect(priceOf(table, 'claude-opus-5-5-extra')).toBeUndefined();
  });

  it("a user's price file adds, replaces and takes away prices; a bad one is an error that says where", () => {
    const dir = temp();
    const file = path.join(dir, 'prices.json');
    expect(loadPrices(file)).toEqual(table);
    fs.writeFileSync(
      file,
      JSON.stringify({
        date: '2026-12-10',
        models: { 'claude-mock': { input: 1, output: 2, cacheWrite: 3, cacheRead: 4 }, 'claude-opus-5-5': null },
      }),
    );
    const own = loadPrices(file);
    expect(costOf(own, new Map([[bucket('claude-mock'), tokens(1e6, 1e6)]])).usd).toBe(3);
    expect(priceOf(own, 'claude-opus-5-5')).toBeUndefined();
    expect(own.date).toBe('2026-12-10');
    fs.writeFileSync(file, JSON.stringify({ models: { 'claude-mock': { input: '1', output: 2, cacheWrite: 3, cacheRead: 4 } } }));
    expect(() => loadPrices(file)).toThrow(/price file .*prices\.json: models\.claude-mock\.input: Expected number/);
    fs.writeFileSync(file, JSON.stringify({ models: { m: { input: 1, output: 2, cacheWrite: 3, cacheRead: 4, extra: 1 } } }));
    expect(() => loadPrices(file)).toThrow(/models\.m: Unrecognized key/);
    fs.writeFileSync(file, '{"models": ');
    expect(() => loadPrices(file)).toThrow(/not JSON/);
    expect(priceFilePath({ XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/x/tasks/prices.json');
    expect(priceFilePath({ XDG_CONFIG_HOME: 'rel' }, '/home/u')).toBe('/home/u/.config/tasks/prices.json');
  });
});
