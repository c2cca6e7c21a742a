import type {
  ActionRequest,
  ActionResult,
  CarryPreviewPayload,
  CostPayload,
  GoneListsPayload,
  GonePreviewPayload,
  HistoryPayload,
  ListPayload,
  ListRowView,
  NowPayload,
  OverviewPayload,
  RestorePreviewPayload,
  UndoPreviewPayload,
} from '../board-protocol.js';
import { noteHostTime, noteServerTime } from './page-clock.js';

/**
 * The page's side of the API (board-protocol.ts). URLs are relative to the page, whose
 * own URL holds the token, so every request carries it; no Referer is sent.
 */
export interface LiveHandlers {
  overview(payload: OverviewPayload): void;
  row(row: ListRowView): void;
  list(payload: ListPayload): void;
  now(payload: NowPayload): void;
  connection(state: 'live' | 'reconnecting'): void;
}

/** A followed feed; close() stops following (another list, or the page going away). */
export interface Following {
  close(): void;
}

/**
 * Follow the overview and a list: through the shared worker (board-worker.ts), so tabs
 * share their event streams; where a browser has no SharedWorker, with a stream of its own.
 */
export function follow(list: string | undefined, handlers: LiveHandlers): Following {
  const dispatch = (type: string, data: string) => {
    if (type === 'overview') handlers.overview(JSON.parse(data) as OverviewPayload);
    else if (type === 'row') handlers.row(JSON.parse(data) as ListRowView);
    else if (type === 'list') handlers.list(JSON.parse(data) as ListPayload);
    else if (type === 'now') handlers.now(JSON.parse(data) as NowPayload);
    else if (type === 'clock') noteServerTime(Number(data));
    else if (type === 'host-clock') {
      const { host, at } = JSON.parse(data) as { host: string; at: number };
      noteHostTime(host, at);
    } else if (type === 'connection') handlers.connection(data === 'live' ? 'live' : 'reconnecting');
  };
  if (typeof SharedWorker === 'function') {
    try {
      const port = new SharedWorker('board-worker.js', { name: 'tasks-board' }).port;
      port.onmessage = (m: MessageEvent<{ type: string; data: string }>) => dispatch(m.data.type, m.data.data);
      port.start();
      port.postMessage({ type: 'follow', list });
      const bye = () => port.postMessage({ type: 'bye' });
      window.addEventListener('pagehide', bye);
      return {
        close: () => {
          window.removeEventListener('pagehide', bye);
          bye();
          port.close();
        },
      };
    } catch {
      // No worker here (a policy, a private window): a stream of this page's own.
    }
  }
  const source = new EventSource(list === undefined ? 'api/events' : `api/events?list=${encodeURIComponent(list)}`);
  for (const type of ['clock', 'host-clock', 'overview', 'row', 'list', 'now'])
    source.addEventListener(type, (e) => dispatch(type, (e as MessageEvent<string>).data));
  source.addEventListener('open', () => handlers.connection('live'));
  source.addEventListener('error', () => handlers.connection('reconnecting'));
  return { close: () => source.close() };
}

export async function act(request: ActionRequest): Promise<{ status: number; result: ActionResult }> {
  try {
    const res = await fetch('api/action', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
      referrerPolicy: 'no-referrer',
    });
    return { status: res.status, result: (await res.json()) as ActionResult };
  } catch (err) {
    return { status: 0, result: { ok: false, error: { code: 'network', message: `the board did not answer: ${(err as Error).message}` } } };
  }
}

async function get<T>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, { referrerPolicy: 'no-referrer' });
    return res.ok ? ((await res.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

export async function history(list: string, task: string): Promise<HistoryPayload> {
  return (
    (await get<HistoryPayload>(`api/history?list=${encodeURIComponent(list)}&task=${encodeURIComponent(task)}`)) ?? {
      events: [],
      notes: [],
    }
  );
}

/** What undo and redo would do now (their dry runs). */
export function undoPreview(list: string): Promise<UndoPreviewPayload | undefined> {
  return get<UndoPreviewPayload>(`api/undo?list=${encodeURIComponent(list)}`);
}

/** What releasing the gone owners' tasks would do now (`release --gone --dry-run`). */
export function gonePreview(list: string): Promise<GonePreviewPayload | undefined> {
  return get<GonePreviewPayload>(`api/gone?list=${encodeURIComponent(list)}`);
}

/** What the list's tasks cost (`tasks cost`). */
export function cost(list: string): Promise<CostPayload | undefined> {
  return get<CostPayload>(`api/cost?list=${encodeURIComponent(list)}`);
}

/** What carrying the list's unfinished work would do now (`carry --dry-run`), into session `to` or the first target offered. */
export function carryPreview(list: string, to?: string): Promise<CarryPreviewPayload | undefined> {
  return get<CarryPreviewPayload>(`api/carry?list=${encodeURIComponent(list)}${to === undefined ? '' : `&to=${encodeURIComponent(to)}`}`);
}

/** The lists whose folder is gone while their transcripts remain (`tasks lists --all`). */
export function goneLists(): Promise<GoneListsPayload | undefined> {
  return get<GoneListsPayload>('api/gone-lists');
}

/** What restoring the list would do now (`restore --dry-run`), from the sessions `from` names (`--from`) or those found for it. */
export function restorePreview(list: string, from: readonly string[] = []): Promise<RestorePreviewPayload | undefined> {
  const named = from.map((f) => `&from=${encodeURIComponent(f)}`).join('');
  return get<RestorePreviewPayload>(`api/restore?list=${encodeURIComponent(list)}${named}`);
}
