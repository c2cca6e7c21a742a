import type { ListChoice } from '../core/lists/list-choice.js';
import { ago } from './elapsed.js';
import { promptText, tildePath } from './session-text.js';

/**
 * The stderr line that says which list a command took and why, whenever the person did
 * not name it outright: `using list 2d483082 (live session "fix the login bug",
 * ~/work/myproj)`. Undefined when the list was named in full or by the environment.
 */
export function renderChoiceNote(
  choice: ListChoice,
  opts: { home: string; now: number; width: number; short: (id: string) => string },
): string | undefined {
  const shown = opts.short(choice.id);
  switch (choice.how) {
    case 'flag':
    case 'env':
      return undefined;
    case 'flag-prefix':
      return `using list ${choice.id}, the only one whose id starts with "${choice.typed ?? ''}"`;
    case 'session':
    case 'project': {
      const others = (choice.candidates ?? []).filter((c) => c !== choice.id).length;
      const where = choice.projectDir === undefined ? 'here' : `in ${tildePath(choice.projectDir, opts.home)}`;
      const more = others > 0 ? `; ${others} other list${others === 1 ? '' : 's'} of sessions ${where}: tasks lists` : '';
      return `using list ${shown} (${sessionWords(choice, opts).join(', ')})${more}`;
    }
    case 'only': {
      const words = sessionWords(choice, opts);
      return `using list ${shown}, the only one${words.length > 0 ? ` (${words.join(', ')})` : ''}`;
    }
    case 'most-recent': {
      const others = (choice.candidates ?? []).filter((c) => c !== choice.id).map(opts.short);
      return `using list ${shown}, the most recently changed (others: ${others.join(', ')}); choose with --list`;
    }
  }
}

/** `live session "fix the login bug", ~/work/myproj[, active 5 min ago]` */
function sessionWords(choice: ListChoice, opts: { home: string; now: number; width: number }): string[] {
  const s = choice.session;
  const where = s?.cwd ?? choice.projectDir;
  const parts: string[] = [];
  if (s) {
    const state = `${s.state === 'live' ? 'live' : s.state} session`;
    const prompt = promptText(s.prompt, Math.max(20, Math.min(50, opts.width - 60)));
    parts.push(prompt === '' ? state : `${state} "${prompt}"`);
  }
  if (where !== undefined) parts.push(tildePath(where, opts.home));
  if (s && s.state !== 'live' && s.lastActivity !== undefined) parts.push(`active ${ago(s.lastActivity, opts.now)}`);
  return parts;
}
