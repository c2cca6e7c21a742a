/**
 * Focus stays where the person was. Drawing replaces or moves elements (a card redrawn
 * because its task changed, a card moved to another column, the detail panel filled
 * again), and the browser drops focus to <body> when the focused element leaves the
 * document. So each draw notes what had focus, by what it shows (its task, its action,
 * its list, its id) rather than by the element, and gives focus back to the element that
 * now shows the same thing: the same button if it is still offered, else its card.
 */
interface Spot {
  region: string | undefined;
  id: string | undefined;
  task: string | undefined;
  action: string | undefined;
  list: string | undefined;
  txn: string | undefined;
}

const ATTRS = ['data-action', 'data-list', 'data-txn'] as const;

function spotOf(el: Element): Spot {
  const own = (name: (typeof ATTRS)[number]) => el.closest(`[${name}]`)?.getAttribute(name) ?? undefined;
  return {
    region: el.closest('[id]')?.id,
    id: el.id || undefined,
    task: el.closest('[data-task]')?.getAttribute('data-task') ?? undefined,
    action: own('data-action'),
    list: own('data-list'),
    txn: own('data-txn'),
  };
}

function attr(name: string, value: string): string {
  return `[${name}="${CSS.escape(value)}"]`;
}

function find(spot: Spot): HTMLElement | SVGElement | undefined {
  if (spot.id) {
    const el = document.getElementById(spot.id);
    if (el) return el;
  }
  const scopes = [spot.region ? document.getElementById(spot.region) : null, document.getElementById('view'), document.body];
  for (const scope of scopes) {
    if (!scope) continue;
    const task = spot.task === undefined ? '' : attr('data-task', spot.task);
    const tries = [
      spot.action !== undefined ? `${task ? `${task} ` : ''}${attr('data-action', spot.action)}` : undefined,
      spot.list !== undefined ? attr('data-list', spot.list) : undefined,
      spot.txn !== undefined ? attr('data-txn', spot.txn) : undefined,
      task || undefined,
    ];
    for (const selector of tries) {
      if (selector === undefined) continue;
      const el = scope.querySelector<HTMLElement | SVGElement>(selector);
      if (el) return el;
    }
    // The action is no longer offered (Start became Done): the panel's first action.
    if (spot.action !== undefined && scope.id === spot.region) {
      const el = scope.querySelector<HTMLElement>('[data-action]');
      if (el) return el;
    }
  }
  return undefined;
}

/** Run `draw`; if it took focus away from where the person was, give it back. */
export function keepFocus(draw: () => void): void {
  const before = document.activeElement;
  const spot = before && before !== document.body && before.isConnected ? spotOf(before) : undefined;
  draw();
  if (!spot) return;
  const now = document.activeElement;
  if (now && now !== document.body && now.isConnected) return;
  find(spot)?.focus({ preventScroll: true });
}
