/**
 * Building the page's elements. Text goes in as text nodes only: no HTML is ever parsed
 * from data (no innerHTML anywhere in the page), so a subject such as `<img onerror>`
 * is shown as those characters.
 */
/** An array is its items, in order: a list's rows go in as one (a spread into the call has a limit). */
type Child = Node | string | null | undefined | false | readonly Child[];
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
    // Event handlers only through addEventListener: an `on...` attribute from data never exists.
    else if (key.startsWith('on')) continue;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

function append(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(typeof child === 'string' ? document.createTextNode(child) : (child as Node));
  }
}

/** replaceChildren that skips the parts a view leaves out. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

export function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} missing`);
  return el as T;
}

/** Make `parent`'s children exactly `wanted`, moving only what is out of place (unchanged nodes stay put). */
export function reconcile(parent: Element, wanted: readonly Element[]): void {
  let at = parent.firstElementChild;
  for (const el of wanted) {
    if (el === at) {
      at = at.nextElementSibling;
      continue;
    }
    parent.insertBefore(el, at);
  }
  while (at) {
    const next = at.nextElementSibling;
    at.remove();
    at = next;
  }
}
