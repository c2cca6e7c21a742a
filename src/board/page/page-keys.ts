import { byId, h } from './page-dom.js';

/**
 * The keyboard: shortcuts for what a person does most, listed by `?`. None fires while
 * typing in a field, while a dialog is open, or with Ctrl, Alt or Meta held (those
 * belong to the browser).
 */
export interface KeyHandlers {
  /** The task the keys act on: the focused card or node, else the task open. */
  current(): string | undefined;
  open(id: string): void;
  start(id: string): void;
  done(id: string): void;
  /** Assign to me & start: the claim of the task's Assign to me & start button. */
  assignToMe(id: string): void;
  toggleGraph(): void;
  close(): boolean;
}

export const SHORTCUTS: ReadonlyArray<readonly [string[], string]> = [
  [['j', '↓'], 'next card (in the graph: next task)'],
  [['k', '↑'], 'previous card'],
  [['h', '←', 'l', '→'], 'the card beside, in the column to the left or right'],
  [['Enter'], 'open the focused task (on a button: press it)'],
  [['s'], 'start the task (pending → in progress)'],
  [['d'], 'mark the task done'],
  [
    ['a'],
    'assign the task to you and start it (Assign to me & start: as an agent claims a task, one that is pending, unowned and not blocked)',
  ],
  [['/'], 'search the tasks'],
  [['g'], 'switch between board and graph'],
  [['Esc'], 'close the task, the dialog or the lists'],
  [['?'], 'this list'],
];

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Cards (or graph nodes) in reading order, and by column. */
function items(): { all: Array<HTMLElement | SVGElement>; columns: HTMLElement[][] } {
  const view = byId('view');
  const columns = [...view.querySelectorAll<HTMLElement>('.column')]
    .filter((c) => c.offsetParent !== null)
    .map((c) => [...c.querySelectorAll<HTMLElement>('.card[data-task]')]);
  const nodes = [...view.querySelectorAll<SVGElement>('.node[data-task]')];
  return { all: nodes.length > 0 ? nodes : columns.flat(), columns };
}

function move(key: string): boolean {
  const { all, columns } = items();
  if (all.length === 0) return false;
  const active = document.activeElement?.closest<HTMLElement | SVGElement>('#view [data-task]') ?? null;
  const at = active ? all.indexOf(active) : -1;
  let target: HTMLElement | SVGElement | undefined;
  if (key === 'j' || key === 'ArrowDown') target = all[Math.min(all.length - 1, at + 1)];
  else if (key === 'k' || key === 'ArrowUp') target = all[Math.max(0, at - 1)];
  else {
    const col = columns.findIndex((c) => active !== null && c.includes(active as HTMLElement));
    const row = col < 0 ? 0 : (columns[col] as HTMLElement[]).indexOf(active as HTMLElement);
    const step = key === 'h' || key === 'ArrowLeft' ? -1 : 1;
    for (let c = col + step; c >= 0 && c < columns.length; c += step) {
      const column = columns[c] as HTMLElement[];
      if (column.length === 0) continue;
      target = column[Math.min(row, column.length - 1)];
      break;
    }
    if (col < 0) target = all[0];
  }
  if (!target) return false;
  target.focus();
  target.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  return true;
}

function showHelp(dialog: HTMLDialogElement): void {
  const rows = SHORTCUTS.flatMap(([keys, what]) => [
    h('dt', {}, ...keys.flatMap((k, i) => [i > 0 ? ' ' : '', h('kbd', {}, k)])),
    h('dd', {}, what),
  ]);
  const close = h('button', { class: 'primary', type: 'button', onclick: () => dialog.close() }, 'Close');
  dialog.replaceChildren(
    h('h2', { id: 'keys-title' }, 'Keyboard shortcuts'),
    h('dl', { class: 'keys' }, ...rows),
    h('div', { class: 'dialog-buttons' }, close),
  );
  dialog.setAttribute('aria-labelledby', 'keys-title');
  dialog.showModal();
  close.focus();
}

export function startKeys(dialog: HTMLDialogElement, handlers: KeyHandlers): void {
  byId('keys-help').addEventListener('click', () => showHelp(dialog));
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || dialog.open) return;
    if (e.key === 'Escape') {
      if (handlers.close()) e.preventDefault();
      return;
    }
    if (typing(e.target)) return;
    const key = e.key;
    const onControl = e.target instanceof HTMLButtonElement || e.target instanceof HTMLAnchorElement;
    const task = handlers.current();
    let done = true;
    switch (key) {
      case 'j':
      case 'k':
      case 'h':
      case 'l':
        done = move(key);
        break;
      case 'ArrowDown':
      case 'ArrowUp':
      case 'ArrowLeft':
      case 'ArrowRight':
        // Arrows move between cards only from a card: elsewhere they scroll, as always.
        done = !onControl && document.activeElement?.closest('#view [data-task]') != null && move(key);
        break;
      case '?':
        showHelp(dialog);
        break;
      case '/':
        byId('f-search').focus();
        break;
      case 'g':
        handlers.toggleGraph();
        break;
      case 's':
        if (task) handlers.start(task);
        else done = false;
        break;
      case 'd':
        if (task) handlers.done(task);
        else done = false;
        break;
      case 'a':
        if (task) handlers.assignToMe(task);
        else done = false;
        break;
      default:
        done = false;
    }
    if (done) e.preventDefault();
  });
}
