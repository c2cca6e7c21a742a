import { h } from './page-dom.js';

/**
 * Small forms in a modal <dialog>: asking for an owner, for task ids, for a new task,
 * or for a yes before a delete. Each resolves with the answer, or undefined if cancelled.
 */
export interface Field {
  name: string;
  label: string;
  value?: string;
  placeholder?: string;
  multiline?: boolean;
  required?: boolean;
  options?: readonly string[];
}

export function askForm(
  dialog: HTMLDialogElement,
  title: string,
  fields: readonly Field[],
  submit: string,
  extra?: { label: string; value: Record<string, string> },
): Promise<Record<string, string> | undefined> {
  return new Promise((resolve) => {
    const inputs = new Map<string, HTMLInputElement | HTMLTextAreaElement>();
    const listId = (f: Field) => `dl-${f.name}`;
    const rows = fields.map((f) => {
      const input = f.multiline
        ? h('textarea', { name: f.name, rows: 4, placeholder: f.placeholder })
        : h('input', {
            name: f.name,
            type: 'text',
            placeholder: f.placeholder,
            list: f.options ? listId(f) : undefined,
            autocomplete: 'off',
          });
      input.value = f.value ?? '';
      if (f.required) input.required = true;
      inputs.set(f.name, input);
      return h(
        'label',
        { class: 'field' },
        h('span', {}, f.label),
        input,
        f.options
          ? h(
              'datalist',
              { id: listId(f) },
              f.options.map((o) => h('option', { value: o })),
            )
          : null,
      );
    });
    let settled = false;
    const finish = (answer: Record<string, string> | undefined) => {
      if (settled) return;
      settled = true;
      dialog.close();
      resolve(answer);
    };
    const form = h(
      'form',
      {
        method: 'dialog',
        onsubmit: (e: Event) => {
          e.preventDefault();
          finish(Object.fromEntries([...inputs].map(([k, v]) => [k, v.value])));
        },
      },
      h('h2', {}, title),
      ...rows,
      h(
        'div',
        { class: 'dialog-buttons' },
        h('button', { type: 'button', class: 'ghost', onclick: () => finish(undefined) }, 'Cancel'),
        extra ? h('button', { type: 'button', class: 'ghost', onclick: () => finish(extra.value) }, extra.label) : null,
        h('button', { type: 'submit', class: 'primary', 'data-submit': 'true' }, submit),
      ),
    );
    dialog.replaceChildren(form);
    dialog.onclose = () => finish(undefined);
    dialog.showModal();
    (inputs.values().next().value as HTMLElement | undefined)?.focus();
  });
}

export function confirmDialog(dialog: HTMLDialogElement, title: string, body: string, yes: string): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: boolean) => {
      if (settled) return;
      settled = true;
      dialog.close();
      resolve(answer);
    };
    dialog.replaceChildren(
      h(
        'form',
        {
          method: 'dialog',
          onsubmit: (e: Event) => {
            e.preventDefault();
            finish(true);
          },
        },
        h('h2', {}, title),
        h('p', { class: 'agent-text' }, body),
        h(
          'div',
          { class: 'dialog-buttons' },
          h('button', { type: 'button', class: 'ghost', onclick: () => finish(false) }, 'Cancel'),
          h('button', { type: 'submit', class: 'danger', 'data-submit': 'true' }, yes),
        ),
      ),
    );
    dialog.onclose = () => finish(false);
    dialog.showModal();
  });
}
