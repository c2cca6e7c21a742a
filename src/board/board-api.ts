import type { ServerResponse } from 'node:http';
import { isSessionId } from '../core/sessions/session-index.js';
import { isTaskId } from '../core/store/ids.js';
import { type ActionContext, type ActionOutcome, runAction } from './board-actions.js';
import { carryPreview } from './board-carry.js';
import { costPayload } from './board-cost.js';
import { gonePreview } from './board-gone.js';
import type { BoardLive } from './board-live.js';
import type { BoardNow } from './board-now.js';
import { restoreFrom } from './board-requests.js';
import { goneListsPayload, restorePreview } from './board-restore.js';
import { type BoardContext, historyPayload, type RowsSeen, type Sessions } from './board-state.js';
import { undoPreview } from './board-undo.js';

/**
 * What the board's server serves besides its page: the reads (`api/<route>`), the
 * actions and the event streams. One machine's board answers them from its own config
 * folder (localApi); a board of several hosts (-H) asks each host's own (board-hub.ts),
 * which answers them with localApi there.
 */
export interface BoardApi {
  /** A read: its status and its JSON. */
  get(route: string, query: URLSearchParams): Promise<ApiAnswer>;
  /** An action (board-actions.ts), its body as the page sent it. */
  action(body: unknown, signal: AbortSignal): Promise<ActionOutcome>;
  /** Is this a list id the board may be asked about (a query's `list`)? Checked before any route. */
  listOk(list: string): boolean;
  /** A new event stream; false when no more streams are taken. */
  events(res: ServerResponse, query: URLSearchParams): boolean;
  close(): void;
}

export interface ApiAnswer {
  status: number;
  body: string;
}

const LIST_ID = /^[A-Za-z0-9_-]{1,255}$/;

export const answer = (status: number, value: unknown): ApiAnswer => ({ status, body: JSON.stringify(value) });
export const usage = (message: string): ApiAnswer => answer(400, { ok: false, error: { code: 'usage', message } });
export const notFound: ApiAnswer = { status: 404, body: 'not found\n' };

export interface LocalParts {
  ctx: BoardContext;
  sessions: Sessions;
  live: BoardLive;
  now: BoardNow;
  action: Omit<ActionContext, 'signal'>;
}

/** The board of this machine's config folder. */
export function localApi(o: LocalParts): BoardApi {
  const carryCtx = { configDir: o.ctx.configDir, person: o.ctx.person, home: o.ctx.home };
  // Gone lists dated ahead of the clock: when each was first seen so (goneListsPayload).
  const goneSeen: RowsSeen = new Map();
  // A task's changes recorded ahead of the clock: when each was first read so (historyPayload).
  const historySeen: RowsSeen = new Map();
  return {
    action: (body, signal) => runAction({ ...o.action, signal }, body),
    listOk: (list) => LIST_ID.test(list),
    events: (res, query) => o.live.open(res, query.get('list') ?? undefined),
    close: () => o.live.close(),
    async get(route, query) {
      const list = query.get('list') ?? query.get('id') ?? undefined;
      const needsList = (then: (list: string) => Promise<ApiAnswer> | ApiAnswer): Promise<ApiAnswer> | ApiAnswer =>
        list === undefined ? usage('list is required') : then(list);
      switch (route) {
        case 'api/overview':
          return { status: 200, body: o.live.overview() };
        case 'api/now':
          return { status: 200, body: o.now.payload() };
        case 'api/list':
          return needsList((l) => ({ status: 200, body: o.live.listJson(l) }));
        case 'api/history': {
          const task = query.get('task') ?? '';
          if (list === undefined || !isTaskId(task)) return usage('list and task are required');
          return answer(200, await historyPayload(o.ctx, o.sessions.current, list, task, historySeen));
        }
        case 'api/undo':
          return needsList(async (l) => answer(200, await undoPreview(o.sessions.current, o.ctx.configDir, l)));
        case 'api/cost':
          return needsList((l) => answer(200, costPayload(o.ctx, o.sessions.current, l)));
        case 'api/gone':
          return needsList((l) => answer(200, gonePreview(o.sessions.current, o.ctx, l)));
        case 'api/carry': {
          const to = query.get('to') ?? undefined;
          if (to !== undefined && !isSessionId(to)) return usage('to must be a session id');
          return needsList(async (l) => answer(200, await carryPreview(o.sessions.current, carryCtx, l, to)));
        }
        case 'api/gone-lists':
          return answer(200, await goneListsPayload(o.sessions.current, o.ctx.configDir, o.ctx.home, { rows: goneSeen, now: o.ctx.now }));
        case 'api/restore': {
          let from: string[];
          try {
            from = restoreFrom(query.getAll('from'));
          } catch (err) {
            return usage((err as Error).message);
          }
          const restoreCtx = { configDir: o.ctx.configDir, home: o.ctx.home, projectDir: o.ctx.projectDir };
          return needsList(async (l) => answer(200, await restorePreview(o.sessions.current, restoreCtx, l, from)));
        }
        default:
          return notFound;
      }
    },
  };
}
