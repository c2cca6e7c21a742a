import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../src/board/board-requests.js';
import { hostAllowed, originAllowed, tokenMatches } from '../../src/board/board-security.js';
import { matchesPageFilter, NO_FILTER, type PageFilter, parseMetaTerm } from '../../src/board/page/page-filter.js';
import { cleanLine, cleanText } from '../../src/board/page/page-text.js';
import { blockerState, indexTasks, isBlocked, isReady } from '../../src/core/graph/blockers.js';
import { matchesFilter } from '../../src/core/lists/task-filter.js';
import { stalledOrGone } from '../../src/core/progress/stalled-work.js';
import { isInternal, type Status, type Task } from '../../src/core/store/schema.js';

describe('board security', () => {
  it('compares tokens whole', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches('ab', 'abc')).toBe(false);
    expect(tokenMatches('', 'abc')).toBe(false);
  });
  it('answers to loopback names on its own port only; IP literals too when bound wider', () => {
    expect(hostAllowed('127.0.0.1:8080', 8080, true)).toBe(true);
    expect(hostAllowed('localhost:8080', 8080, true)).toBe(true);
    expect(hostAllowed('[::1]:8080', 8080, true)).toBe(true);
    expect(hostAllowed('LOCALHOST:8080', 8080, true)).toBe(true);
    for (const bad of [
      '127.0.0.1:8081',
      '127.0.0.1',
      'evil.example:8080',
      'localhost.evil.example:8080',
      '192.168.1.5:8080',
      undefined,
      '127.0.0.1:8080:1',
      'a@127.0.0.1:8080',
    ]) {
      expect(hostAllowed(bad, 8080, true), String(bad)).toBe(false);
    }
    expect(hostAllowed('192.168.1.5:8080', 8080, false)).toBe(true);
    expect(hostAllowed('[fe80::1]:8080', 8080, false)).toBe(true);
    expect(hostAllowed('evil.example:8080', 8080, false)).toBe(false);
    // The address it was told to listen on, as its URL names it.
    expect(hostAllowed('127.0.0.5:8080', 8080, true, '127.0.0.5')).toBe(true);
    expect(hostAllowed('127.0.0.6:8080', 8080, true, '127.0.0.5')).toBe(false);
    expect(hostAllowed('[fe80::1]:8080', 8080, true, 'FE80::1')).toBe(true);
  });
  it('takes actions from its own page only', () => {
    const host = '127.0.0.1:8080';
    expect(originAllowed({ host, origin: 'http://127.0.0.1:8080' }, true)).toBe(true);
    expect(originAllowed({ host, origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-origin' }, true)).toBe(true);
    expect(originAllowed({ host }, true)).toBe(false);
    expect(originAllowed({ host }, false)).toBe(true);
    expect(originAllowed({ host, origin: 'http://localhost:8080' }, true)).toBe(false);
    expect(originAllowed({ host, origin: 'null' }, true)).toBe(false);
    expect(originAllowed({ host, 'sec-fetch-site': 'cross-site' }, false)).toBe(false);
    expect(originAllowed({ host, 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:8080' }, true)).toBe(false);
  });
});

describe('board actions: what a request may hold', () => {
  const expect_ = { status: 'pending', owner: null };
  it('takes well-formed actions', () => {
    expect(parseRequest({ action: 'start', list: 'demo', id: '4', expect: expect_ })).toEqual({
      action: 'start',
      list: 'demo',
      id: '4',
      expect: expect_,
    });
    expect(parseRequest({ action: 'reassign', list: 'demo', id: '4', expect: expect_, owner: null })).toMatchObject({ owner: null });
    expect(parseRequest({ action: 'block', list: 'demo', id: '4', expect: expect_, by: ['2', '2', '3'] })).toMatchObject({
      by: ['2', '3'],
    });
    expect(parseRequest({ action: 'create', list: 'demo', subject: 'x' })).toMatchObject({ subject: 'x', blockedBy: [] });
  });
  it('refuses anything else as a usage error', () => {
    const bad = [
      null,
      [],
      { action: 'start', list: '../x', id: '4', expect: expect_ },
      { action: 'start', list: 'demo', id: '04', expect: expect_ },
      { action: 'start', list: 'demo', id: '4' },
      { action: 'start', list: 'demo', id: '4', expect: { status: 'deleted', owner: null } },
      { action: 'reassign', list: 'demo', id: '4', expect: expect_, owner: '  ' },
      { action: 'block', list: 'demo', id: '4', expect: expect_, by: [] },
      { action: 'block', list: 'demo', id: '4', expect: expect_, by: ['x'] },
      { action: 'create', list: 'demo', subject: '' },
      { action: 'undo', list: 'demo' },
      { action: 'shutdown', list: 'demo' },
    ];
    for (const body of bad) expect(() => parseRequest(body), JSON.stringify(body)).toThrow(expect.objectContaining({ code: 'usage' }));
  });
});

describe('board text', () => {
  it('makes controls visible and keeps markup as characters', () => {
    expect(cleanLine('a\u001b[31mb\u0007c')).toBe('a␛[31mb␇c');
    expect(cleanLine('abc\u202edcba\u2066x\u200by')).toBe('abc\ufffddcba\ufffdx\ufffdy');
    expect(cleanLine('one\ntwo\tthree')).toBe('one two three');
    expect(cleanText('one\r\ntwo\tthree\u0085')).toBe('one\ntwo\tthree\ufffd');
    expect(cleanLine('<b>x</b>')).toBe('<b>x</b>');
  });
});

describe("the page's filters give core's answers", () => {
  function random(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
  }
  it('on random tasks and filters', () => {
    const rnd = random(42);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
    const statuses: Status[] = ['pending', 'in_progress', 'completed'];
    const tasks: Task[] = Array.from({ length: 60 }, (_, i) => ({
      id: String(i + 1),
      subject: pick(['Fix Auth', 'write docs', 'AUTH tests', 'deploy']),
      description: pick(['', 'about auth', 'Nothing']),
      status: pick(statuses),
      blocks: [],
      blockedBy: rnd() < 0.4 ? [String(1 + Math.floor(rnd() * 70))] : [],
      ...(rnd() < 0.6 ? { owner: pick(['amy', 'bob', '']) } : {}),
      ...(rnd() < 0.5 ? { metadata: pick([{ priority: 'high' }, { n: 3 }, { _internal: true }, { priority: 'low', n: 3 }]) } : {}),
    }));
    const index = indexTasks(tasks);
    for (let k = 0; k < 400; k++) {
      const meta = rnd() < 0.3 ? [pick(['priority=high', 'n:=3', 'n=3', 'priority:="high"'])] : [];
      const f: PageFilter = {
        ...NO_FILTER,
        statuses: rnd() < 0.4 ? [pick(statuses)] : [],
        owner: rnd() < 0.3 ? pick(['amy', 'bob']) : undefined,
        unowned: rnd() < 0.2,
        ready: rnd() < 0.2,
        blocked: rnd() < 0.2,
        all: rnd() < 0.5,
        search: rnd() < 0.3 ? pick(['auth', 'DOCS', 'x']) : '',
        meta: meta.map((m) => parseMetaTerm(m)!),
      };
      const core = {
        statuses: f.statuses.length > 0 ? [...f.statuses] : undefined,
        owner: f.owner,
        unowned: f.unowned,
        ready: f.ready,
        blocked: f.blocked,
        includeInternal: f.all,
        search: f.search === '' ? undefined : f.search,
        meta: f.meta.length > 0 ? Object.fromEntries(f.meta) : undefined,
      };
      for (const t of tasks) {
        const facts = {
          blocked: isBlocked(t, index),
          ready: isReady(t, index),
          internal: isInternal(t),
          openBlockers: [...blockerState(t, index).open],
          missingBlockers: [],
          ownerGone: false,
        };
        expect(matchesPageFilter(t as never, facts, f), `${JSON.stringify(t)} ${JSON.stringify(f)}`).toBe(matchesFilter(t, core, index));
      }
    }
  });

  it('the stalled filter shows what --stalled shows: a stall, or a task in progress whose agent is gone, whatever its age', () => {
    const task = (id: string): Task => ({ id, subject: 's', description: '', status: 'in_progress', blocks: [], blockedBy: [] });
    const gone = { session: null, why: 'session 4aa21e64 crashed', since: null };
    const cases = [
      { id: '1', stalledMs: 90_000, agentGone: undefined },
      { id: '2', stalledMs: undefined, agentGone: gone },
      { id: '3', stalledMs: 90_000, agentGone: gone },
      { id: '4', stalledMs: undefined, agentGone: undefined },
    ];
    const stalled = new Map(cases.flatMap((c) => (c.stalledMs === undefined ? [] : [[c.id, c.stalledMs] as const])));
    const shown = stalledOrGone(
      cases.map((c) => task(c.id)),
      stalled,
      (id) => cases.find((c) => c.id === id)?.agentGone !== undefined,
      () => undefined,
      0,
    );
    for (const c of cases) {
      const facts = {
        blocked: false,
        ready: false,
        internal: false,
        openBlockers: [],
        missingBlockers: [],
        ownerGone: false,
        ...(c.stalledMs === undefined ? {} : { stalledMs: c.stalledMs }),
        ...(c.agentGone === undefined ? {} : { agentGone: c.agentGone }),
      };
      expect(matchesPageFilter(task(c.id) as never, facts, { ...NO_FILTER, stalled: true }), c.id).toBe(shown.has(c.id));
    }
    expect([...shown.keys()]).toEqual(['1', '2', '3']);
  });
});
