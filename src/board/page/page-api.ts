import type { ActionRequest, ActionResult, HistoryPayload, ListPayload, ListRowView, OverviewPayload } from '../board-protocol.js';

/**
 * The page's side of the API (board-protocol.ts). URLs are relative to the page, whose
 * own URL holds the token, so every request carries it; no Referer is sent.
 */
export interface LiveHandlers {
  overview(payload: OverviewPayload): void;
  row(row: ListRowView): void;
  list(payload: ListPayload): void;
  connection(state: 'live' | 'reconnecting'): void;
}

export function follow(list: string | undefined, handlers: LiveHandlers): EventSource {
  const source = new EventSource(list === undefined ? 'api/events' : `api/events?list=${encodeURIComponent(list)}`);
  source.addEventListener('overview', (e) => handlers.overview(JSON.parse((e as MessageEvent<string>).data) as OverviewPayload));
  source.addEventListener('row', (e) => handlers.row(JSON.parse((e as MessageEvent<string>).data) as ListRowView));
  source.addEventListener('list', (e) => handlers.list(JSON.parse((e as MessageEvent<string>).data) as ListPayload));
  source.addEventListener('open', () => handlers.connection('live'));
  source.addEventListener('error', () => handlers.connection('reconnecting'));
  return source;
}

export async function act(request: ActionRequest): Promise<{ status: number; result: ActionResult }> {
  try {
    const res = await fetch('api/action', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request), referrerPolicy: 'no-referrer' });
    return { status: res.status, result: (await res.json()) as ActionResult };
  } catch (err) {
    return { status: 0, result: { ok: false, error: { code: 'network', message: `the board did not answer: ${(err as Error).message}` } } };
  }
}

export async function history(list: string, task: string): Promise<HistoryPayload> {
  const res = await fetch(`api/history?list=${encodeURIComponent(list)}&task=${encodeURIComponent(task)}`, { referrerPolicy: 'no-referrer' });
  if (!res.ok) return { events: [] };
  return (await res.json()) as HistoryPayload;
}
