/**
 * The board page's notifications (page-notify.ts) are shown once per event: the keys
 * shown are kept in the browser's storage. An upgrade of `tasks` that keys an event anew
 * (an agent gone is keyed by its death's end since notify learnt to tell a second death,
 * notify-events.ts earlierClaim) must not show again what a tab showed before it, as
 * `tasks notify` does not send it again; a new death is shown.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NowEventView, NowPayload } from '../../src/board/board-protocol.js';
import { noteHostTime, noteServerTime } from '../../src/board/page/page-clock.js';
import { notifyNew } from '../../src/board/page/page-notify.js';

const END = 1_765_000_000_000;
let store: Map<string, string>;
let shown: string[];

beforeEach(() => {
  store = new Map([['tasks-board-notify', 'on']]);
  shown = [];
  const localStorage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
  vi.stubGlobal('window', { localStorage, focus: () => undefined });
  vi.stubGlobal(
    'Notification',
    class {
      static permission = 'granted';
      onclick: (() => void) | null = null;
      constructor(_title: string, o: { tag: string }) {
        shown.push(o.tag);
      }
    },
  );
});
afterEach(() => vi.unstubAllGlobals());

function died(key: string): NowEventView {
  return {
    list: 'L',
    shortId: 'L',
    project: null,
    key,
    type: 'agent-died',
    title: 't',
    text: 'x',
    action: 'a',
    tasks: [],
    since: END,
    seen: false,
    leftWork: 1,
  };
}

function payload(events: NowEventView[]): NowPayload {
  return {
    at: END,
    ready: true,
    needsPerson: events.length,
    working: [],
    waiting: [],
    stalled: [],
    died: events,
    problems: [],
    finished: [],
    feed: [],
  };
}

describe('board notifications through an upgrade of tasks', () => {
  it('an agent gone, shown under the key an earlier build gave it, is not shown again under its new key', () => {
    // What a tab of the earlier build kept: the keys without the death's end.
    store.set('tasks-board-notified', JSON.stringify(['agent-died|L|worker-1|3', 'h0:agent-died|web|session abc|1,2']));
    notifyNew(payload([died(`agent-died|L|worker-1|3|${END}`), died(`h0:agent-died|web|session abc|1,2|${END}`)]), () => undefined);
    expect(shown).toEqual([]);
    // Kept under the new keys: still not shown again.
    notifyNew(payload([died(`agent-died|L|worker-1|3|${END}`), died(`h0:agent-died|web|session abc|1,2|${END}`)]), () => undefined);
    expect(shown).toEqual([]);
  });

  it('an agent gone that no earlier key names is shown, once', () => {
    store.set('tasks-board-notified', JSON.stringify(['agent-died|L|worker-1|3']));
    notifyNew(payload([died(`agent-died|L|worker-2|4|${END}`), died(`h1:agent-died|L|worker-1|3|${END}`)]), () => undefined);
    expect(shown).toEqual([`agent-died|L|worker-2|4|${END}`, `h1:agent-died|L|worker-1|3|${END}`]);
    notifyNew(payload([died(`agent-died|L|worker-2|4|${END}`), died(`h1:agent-died|L|worker-1|3|${END}`)]), () => undefined);
    expect(shown).toHaveLength(2);
  });

  it("counts on the clock of the machine the agent died on, not the browser's: a death a minute ago there is not shown again", () => {
    // The browser's clock 5 min behind the board's, a host's 3 h ahead of both.
    const board = Date.now() + 5 * 60_000;
    const host = board + 3 * 3_600_000;
    noteServerTime(board);
    noteHostTime('h0', host);
    try {
      store.set('tasks-board-notified', JSON.stringify(['agent-died|L|worker-1|3', 'h0:agent-died|web|session abc|1,2']));
      const here = { ...died(`agent-died|L|worker-1|3|${board - 60_000}`) };
      const there = { ...died(`h0:agent-died|web|session abc|1,2|${host - 60_000}`), list: 'h0-web' };
      notifyNew(payload([here, there]), () => undefined);
      expect(shown).toEqual([]);
    } finally {
      noteServerTime(Date.now());
    }
  });
});
