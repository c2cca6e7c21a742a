import type { CarryPreviewPayload, GoneListsPayload, GoneListView, RestorePreviewPayload, RestoreSourceView } from '../board-protocol.js';
import { serverNow } from './page-clock.js';
import { fill, h } from './page-dom.js';
import { lastChangeWords } from './page-sidebar.js';
import { cleanLine, cutLine } from './page-text.js';

/**
 * The dialogs of carry and restore: each shows the command's dry run as it prints it
 * (its lines, its summary, its warnings) before anything is written, and the refusal a
 * real run would meet, in its words. A carry from a list a live agent works on asks for
 * a second, explicit yes (the command's --force).
 */

/** The dry run's text, as the command prints it: its lines (stdout), then its summary and warnings (stderr). */
function dryRun(lines: readonly string[], notes: readonly string[], warnings: readonly string[]): HTMLElement {
  return h(
    'div',
    { class: 'dry-run' },
    lines.length > 0
      ? h('pre', { class: 'dry-run-lines agent-text', tabindex: 0, 'aria-label': 'what would be written' }, lines.map(cleanLine).join('\n'))
      : null,
    ...notes.map((n) => h('p', { class: 'dry-run-note' }, cleanLine(n))),
    ...warnings.map((w) => h('p', { class: 'dry-run-warning' }, `warning: ${cleanLine(w)}`)),
  );
}

function buttons(...children: Array<HTMLElement | null>): HTMLElement {
  return h('div', { class: 'dialog-buttons' }, ...children);
}

/** Open the dialog with what `build` makes; resolves once, with the answer `finish` is given (undefined: closed). Focus on its main button. */
function open<T>(
  dialog: HTMLDialogElement,
  titleId: string,
  build: (finish: (answer: T | undefined) => void) => Array<HTMLElement | null>,
): Promise<T | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: T | undefined) => {
      if (settled) return;
      settled = true;
      dialog.close();
      resolve(answer);
    };
    dialog.replaceChildren(...build(finish).filter((e): e is HTMLElement => e !== null));
    dialog.setAttribute('aria-labelledby', titleId);
    dialog.onclose = () => finish(undefined);
    if (!dialog.open) dialog.showModal();
    (dialog.querySelector<HTMLElement>('[data-submit]') ?? dialog.querySelector<HTMLElement>('button'))?.focus();
  });
}

export interface CarryChoice {
  to: string;
  force: boolean;
}

/**
 * `carry --dry-run` into the target shown, with a choice of target when there are
 * several (each choice shows its own dry run); resolves with the target and whether the
 * person confirmed despite a live agent on the source, or undefined.
 */
export function carryDialog(
  dialog: HTMLDialogElement,
  listName: string,
  first: CarryPreviewPayload,
  load: (to: string) => Promise<CarryPreviewPayload | undefined>,
): Promise<CarryChoice | undefined> {
  let preview = first;
  return open<CarryChoice>(dialog, 'carry-title', (finish) => {
    const form = h('form', {
      method: 'dialog',
      class: 'carry-dialog',
      onsubmit: (e: Event) => {
        e.preventDefault();
        if (preview.target !== null && preview.count > 0) finish({ to: preview.target.sessionId, force: preview.live !== null });
      },
    });
    const draw = () => {
      const target = preview.target;
      const n = preview.count;
      const choose =
        preview.targets.length > 1
          ? h(
              'label',
              { class: 'field' },
              h('span', {}, 'Carry to'),
              h(
                'select',
                {
                  id: 'carry-target',
                  onchange: (e: Event) => {
                    const to = (e.target as HTMLSelectElement).value;
                    void load(to).then((p) => {
                      if (p === undefined || !dialog.open) return;
                      preview = p;
                      draw();
                      dialog.querySelector<HTMLElement>('#carry-target')?.focus();
                    });
                  },
                },
                ...preview.targets.map((t) => {
                  const option = h(
                    'option',
                    { value: t.sessionId },
                    `${cleanLine(t.label)}${t.why === 'cleared' ? ' (after /clear)' : ''}`,
                  );
                  option.selected = t.sessionId === target?.sessionId;
                  return option;
                }),
              ),
            )
          : null;
      const title =
        target === null
          ? `Cannot carry from ${listName}`
          : n === 0
            ? `Nothing left to carry to session ${target.sessionId.slice(0, 8)}`
            : `Carry ${n} unfinished task${n === 1 ? '' : 's'} to session ${target.sessionId.slice(0, 8)}?`;
      const where =
        target === null
          ? null
          : h(
              'p',
              { class: 'agent-text' },
              `Into the list of ${cleanLine(target.label)}${target.why === 'cleared' ? ', where this list’s session went on after /clear' : ''}. What tasks --session ${target.sessionId.slice(0, 8)} carry --from ${listName} --dry-run says:`,
            );
      const live =
        preview.live === null
          ? null
          : h(
              'p',
              { class: 'refusal', role: 'alert' },
              `But a live agent works on this list (${cleanLine(preview.live)}): carrying would take its work. The command refuses without --force.`,
            );
      const go =
        target !== null && n > 0
          ? h(
              'button',
              { type: 'submit', class: preview.live === null ? 'primary' : 'danger', 'data-submit': 'true' },
              preview.live === null ? `Carry ${n} task${n === 1 ? '' : 's'}` : 'Carry anyway',
            )
          : null;
      fill(
        form,
        h('h2', { id: 'carry-title' }, title),
        choose,
        preview.none === null ? null : h('p', { class: 'refusal', role: 'alert' }, cleanLine(preview.none)),
        where,
        target === null ? null : dryRun(preview.lines, preview.notes, preview.warnings),
        live,
        buttons(h('button', { type: 'button', class: 'ghost', onclick: () => finish(undefined) }, go ? 'Cancel' : 'Close'), go),
      );
    };
    draw();
    return [form];
  });
}

/** The lists whose folder is gone while their transcripts remain (`tasks lists --all`); resolves with the one to restore. */
export function goneListsDialog(dialog: HTMLDialogElement, payload: GoneListsPayload, readOnly: boolean): Promise<string | undefined> {
  return open<string>(dialog, 'gone-title', (finish) => [
    h('h2', { id: 'gone-title' }, 'Gone lists'),
    h(
      'p',
      { class: 'agent-text' },
      payload.lists.length === 0
        ? 'No list is gone: every list its sessions’ transcripts show has its folder.'
        : 'Lists whose folder is gone while their sessions’ transcripts remain (tasks lists --all). A restore rebuilds one from them, its dry run shown first.',
    ),
    payload.lists.length === 0
      ? null
      : h(
          'ul',
          { class: 'gone-lists' },
          ...payload.lists.map((l) =>
            h(
              'li',
              { class: 'gone-list', 'data-list': l.id },
              h(
                'div',
                { class: 'gone-list-text' },
                h('span', { class: 'gone-list-name' }, l.shortId),
                h(
                  'span',
                  { class: 'gone-list-meta agent-text' },
                  joined([
                    `${l.total} task${l.total === 1 ? '' : 's'} (${l.counts.completed} done, ${l.counts.in_progress} in progress, ${l.counts.pending} pending)`,
                    l.session?.prompt ? `“${cutLine(l.session.prompt, 60)}”` : null,
                    l.session?.project ?? null,
                    l.changedAt > 0 ? goneWhen(l) : null,
                    l.mayBeElsewhere ? 'its sessions may have worked on a list named otherwise' : null,
                  ]),
                ),
              ),
              readOnly
                ? null
                : h(
                    'button',
                    { type: 'button', class: 'ghost small', 'aria-label': `Restore ${l.shortId}…`, onclick: () => finish(l.id) },
                    'Restore…',
                  ),
            ),
          ),
        ),
    buttons(h('button', { type: 'button', class: 'ghost', onclick: () => finish(undefined) }, 'Close')),
  ]).then((answer) => answer);
}

/** The parts of a line, those there (not null, not empty), with " · " between them. */
function joined(parts: ReadonlyArray<string | HTMLElement | null>): Array<string | HTMLElement> {
  return parts.filter((p): p is string | HTMLElement => p !== null && p !== '').flatMap((p, i) => (i === 0 ? [p] : [' · ', p]));
}

/**
 * A gone list's last activity, "active 3 min ago"; dated ahead of its machine's clock, as
 * the sidebar says a list's ("seen 2 min ago", why on hover), never "in the future".
 */
function goneWhen(l: GoneListView): HTMLElement {
  const { text, title } = lastChangeWords(l, serverNow(l.id));
  return title === undefined ? h('span', { class: 'when' }, `active ${text}`) : h('span', { class: 'when ahead', title }, text);
}

const WHY_READ: Record<RestoreSourceView['why'], string> = {
  own: 'its own session',
  tasks: 'its tasks are in the transcript',
  binding: 'started where settings bind the list',
  shares: 'shows the same tasks',
  named: 'named (--from)',
  candidate: 'may hold it',
};

/**
 * Which transcripts to read (`restore --from`): the ones the restore found, or would
 * suggest, each a checkbox; another session by its id or a prefix of one. Each choice
 * shows its own dry run; unchecking them all goes back to the transcripts found.
 */
function sourcesField(preview: RestorePreviewPayload, choose: (from: string[]) => void): HTMLElement {
  const chosen = new Set(preview.from);
  const boxes = preview.sources.map((src) => {
    const box = h('input', {
      type: 'checkbox',
      value: src.sessionId,
      'data-session': src.sessionId,
      onchange: () => choose(checked()),
    }) as HTMLInputElement;
    box.checked = preview.from.length === 0 ? src.why !== 'candidate' : chosen.has(src.sessionId);
    const changes =
      src.changes === null || !box.checked
        ? WHY_READ[src.why]
        : `${src.changes} change${src.changes === 1 ? '' : 's'}, ${WHY_READ[src.why]}`;
    return h('label', { class: 'restore-source' }, box, h('span', { class: 'agent-text' }, `${cleanLine(src.label)} · ${changes}`));
  });
  const fieldset = h('fieldset', { class: 'restore-sources' });
  const checked = () =>
    [...fieldset.querySelectorAll<HTMLInputElement>('input[type=checkbox]')].filter((b) => b.checked).map((b) => b.value);
  const other = h('input', {
    id: 'restore-from',
    type: 'text',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'session id or prefix',
    'aria-describedby': 'restore-from-help',
    onkeydown: (e: Event) => {
      if ((e as KeyboardEvent).key !== 'Enter') return;
      // Enter in the field adds the session; it does not restore.
      e.preventDefault();
      add();
    },
  }) as HTMLInputElement;
  const add = () => {
    const typed = other.value.trim();
    if (typed !== '') choose([...new Set([...checked(), typed])]);
  };
  fill(
    fieldset,
    h('legend', {}, 'Read the transcripts of'),
    ...boxes,
    h(
      'div',
      { class: 'restore-from-row' },
      h('label', { for: 'restore-from' }, 'Another session'),
      other,
      h('button', { type: 'button', class: 'ghost small', id: 'restore-from-add', onclick: add }, 'Add'),
    ),
    h(
      'p',
      { class: 'restore-from-help', id: 'restore-from-help' },
      preview.from.length === 0
        ? 'As tasks restore --from <session> names them; tasks lists --all shows the sessions with transcripts.'
        : `As tasks restore ${preview.from.map((f) => `--from ${f.slice(0, 8)}`).join(' ')} reads them.`,
    ),
  );
  return fieldset;
}

/**
 * `restore --dry-run`: what would be written, from the transcripts found or those chosen
 * (`--from`, each choice its own dry run); resolves with the `--from` the person
 * confirmed (empty: the transcripts found), or undefined.
 */
export function restoreDialog(
  dialog: HTMLDialogElement,
  first: RestorePreviewPayload,
  shortId: string,
  load: (from: string[]) => Promise<RestorePreviewPayload | undefined>,
): Promise<string[] | undefined> {
  let preview = first;
  return open<string[]>(dialog, 'restore-title', (finish) => {
    const form = h('form', {
      method: 'dialog',
      class: 'restore-dialog',
      onsubmit: (e: Event) => {
        e.preventDefault();
        if (preview.none === null && preview.count > 0) finish(preview.from);
      },
    });
    // Each choice asks for its own dry run; only the answer to the latest is drawn, so
    // a slow answer to an earlier choice never puts back boxes the person has changed since.
    let asked = 0;
    const choose = (from: string[]) => {
      const focused = document.activeElement as HTMLElement | null;
      const where = focused?.dataset.session ?? focused?.id;
      const ask = ++asked;
      void load(from).then((p) => {
        if (p === undefined || !dialog.open || ask !== asked) return;
        preview = p;
        draw();
        // Focus stays on the control the person used: the same checkbox, or the field.
        const again =
          (where &&
            (dialog.querySelector<HTMLElement>(`[data-session="${CSS.escape(where)}"]`) ??
              dialog.querySelector<HTMLElement>(`#${CSS.escape(where)}`))) ||
          dialog.querySelector<HTMLElement>('#restore-from');
        again?.focus();
      });
    };
    const draw = () => {
      const n = preview.count;
      const ok = preview.none === null && n > 0;
      const command = `tasks -l ${shortId} restore${preview.from.map((f) => ` --from ${f.slice(0, 8)}`).join('')}`;
      fill(
        form,
        h(
          'h2',
          { id: 'restore-title' },
          ok ? `Restore ${n} task${n === 1 ? '' : 's'} into ${shortId}?` : `Nothing to restore into ${shortId}`,
        ),
        preview.none === null
          ? h('p', { class: 'agent-text' }, `As ${command} --dry-run says it (tasks undo takes the restore back):`)
          : h('p', { class: 'refusal', role: 'alert' }, cleanLine(preview.none)),
        preview.none === null ? dryRun(preview.lines, [preview.summary], preview.warnings) : null,
        sourcesField(preview, choose),
        buttons(
          h('button', { type: 'button', class: 'ghost', onclick: () => finish(undefined) }, ok ? 'Cancel' : 'Close'),
          ok ? h('button', { type: 'submit', class: 'primary', 'data-submit': 'true' }, `Restore ${n} task${n === 1 ? '' : 's'}`) : null,
        ),
      );
    };
    draw();
    return [form];
  });
}
