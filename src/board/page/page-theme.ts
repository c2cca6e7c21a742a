import { byId } from './page-dom.js';

/**
 * Light or dark: the system's setting (prefers-color-scheme) until the person picks one
 * with the top bar's button, which cycles system → light → dark and is remembered in this
 * browser (localStorage). The stylesheet does the rest from `data-theme` on <html>.
 */
type Choice = 'system' | 'light' | 'dark';

const KEY = 'tasks-board-theme';
const NEXT: Record<Choice, Choice> = { system: 'light', light: 'dark', dark: 'system' };

function stored(): Choice {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

function apply(choice: Choice): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
  const button = document.getElementById('theme-toggle');
  if (!button) return;
  button.textContent = choice === 'system' ? '◐ Auto' : choice === 'light' ? '☀ Light' : '☾ Dark';
  button.title = `Theme: ${choice === 'system' ? "the system's" : choice} (click: system, light or dark)`;
}

export function startTheme(): void {
  let current = stored();
  apply(current);
  byId('theme-toggle').addEventListener('click', () => {
    const choice = NEXT[current];
    current = choice;
    try {
      if (choice === 'system') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, choice);
    } catch {
      // storage refused (a private window): the choice holds until the page closes
    }
    apply(choice);
  });
}
