import type { ListChoice } from '../core/lists/list-choice.js';
import { ago } from './elapsed.js';
import { fitStyled } from './fit.js';
import { promptText, tildePath } from './session-text.js';
import { oneLine, visibleWidth } from './text.js';

/**
 * The stderr line that says which list a command took and why, when the project or the
 * lists on disk chose it: `using list 2d483082 (live session "fix the login bug",
 * ~/work/myproj)`. One line; with `fit` (a terminal shows it), at most `width` columns. Undefined when the list was named
 * (`--list`, `--session`, the variable, the binding): naming it is saying it.
 */
export function renderChoiceNote(
  choice: ListChoice,
  opts: { home: string; now: number; width: number; short: (id: string) => string; fit?: boolean },
): string | undefined {
  // A named list needs no note (and its short id, which takes a listing of every list, is not worked out).
  if (['flag', 'flag-prefix', 'session', 'env', 'binding'].includes(choice.how)) return undefined;
  const shown = opts.short(choice.id);
  let note: string;
  switch (choice.how) {
    case 'flag':
    case 'flag-prefix':
    case 'session':
    case 'env':
    case 'binding':
      return undefined;
    case 'project': {
      if (choice.fresh) {
        const before = choice.replaced?.[0];
        const earlier = before === undefined ? '' : `; its list before: ${opts.short(before)}`;
        const also = alsoLive(choice, opts);
        note = `using list ${shown} (${sessionWords(choice, opts).join(', ')}): no tasks yet${earlier}${also === '' ? '' : `; ${also}`}`;
        break;
      }
      const others = (choice.candidates ?? []).filter((c) => c !== choice.id).length;
      const where = choice.projectDir === undefined ? 'here' : `in ${tildePath(choice.projectDir, opts.home)}`;
      const also = alsoLive(choice, opts);
      const more =
        also !== ''
          ? `, ${also}; tasks lists shows all ${others + 1}`
          : others > 0
            ? `; ${others} other list${others === 1 ? '' : 's'} of sessions ${where}: tasks lists`
            : '';
      note = `using list ${shown} (${sessionWords(choice, opts).join(', ')})${more}`;
      break;
    }
    case 'only': {
      const words = sessionWords(choice, opts);
      note = `using list ${shown}, the only one${words.length > 0 ? ` (${words.join(', ')})` : ''}`;
      break;
    }
    case 'most-recent': {
      const others = (choice.candidates ?? []).filter((c) => c !== choice.id).map(opts.short);
      note = `using list ${shown}, the most recently changed (others: ${others.join(', ')}); tasks use <id> binds one here`;
      break;
    }
  }
  if (opts.fit && choice.liveOthers !== undefined && visibleWidth(oneLine(note)) > opts.width) {
    // A narrow terminal: the other live lists' ids matter more than their prompts.
    const full = alsoLive(choice, opts);
    const bare = alsoLive(choice, { ...opts, bare: true });
    if (full !== '') note = note.replace(full, () => bare).replace(/; tasks lists shows all \d+$/, '');
  }
  return opts.fit ? fitStyled(oneLine(note), opts.width) : oneLine(note);
}

/**
 * Several live sessions of the project on different lists: why this one (the most
 * recently active), and the others' lists with their prompts, so that one agent's list is
 * not read as all the work going on there. Empty otherwise.
 */
function alsoLive(choice: ListChoice, opts: { home: string; short: (id: string) => string; bare?: boolean }): string {
  const others = choice.liveOthers ?? [];
  if (others.length === 0) return '';
  const where = choice.projectDir === undefined ? 'here' : `in ${tildePath(choice.projectDir, opts.home)}`;
  const named = others.slice(0, opts.bare ? 3 : 2).map((o) => {
    const prompt = opts.bare ? '' : promptText(o.prompt, 30);
    return prompt === '' ? opts.short(o.list) : `${opts.short(o.list)} (${JSON.stringify(prompt)})`;
  });
  const rest = others.length > named.length ? ` and ${others.length - named.length} more` : '';
  return `picked as the most recently active; also live ${where}: ${named.join(', ')}${rest}`;
}

/** `live session "fix the login bug", ~/work/myproj[, active 5 min ago]` */
function sessionWords(choice: ListChoice, opts: { home: string; now: number; width: number }): string[] {
  const s = choice.session;
  const where = s?.cwd ?? choice.projectDir;
  const parts: string[] = [];
  if (s) {
    // "probably": only times say so (core's clearOf).
    const state = `${s.replacedBy === undefined ? s.state : s.clearProof === 'times' ? 'probably cleared' : 'cleared'} session`;
    const prompt = promptText(s.prompt, Math.max(20, Math.min(50, opts.width - 60)));
    parts.push(prompt === '' ? state : `${state} "${prompt}"`);
  }
  if (where !== undefined) parts.push(tildePath(where, opts.home));
  if (s && s.state !== 'live' && s.lastActivity !== undefined) parts.push(`active ${ago(s.lastActivity, opts.now)}`);
  return parts;
}

/** `tasks -l 7c1e2f30 release --gone`: a command line with the list named, quoted so that it pastes as it is. */
export function commandWithList(list: string, args: readonly string[]): string {
  return ['tasks', '-l', list, ...args].map(shellWord).join(' ');
}

/** A word as a POSIX shell reads it back: plain when safe, else in single quotes. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface RefusalCandidate {
  list: string;
  shortId: string;
  /** The id a pasted command names (default: the short id). */
  pasteId?: string | undefined;
  prompt?: string | null | undefined;
  /** The session's state (`live`, `ended` ...) and when it was last active (ms). */
  state?: string | undefined;
  lastActivity?: number | undefined;
}

/**
 * A change refused because it cannot choose: each candidate with the command that makes
 * the change in it, to paste as it is, and how to make the choice stick. One line.
 */
export function renderRefusalCommands(candidates: readonly RefusalCandidate[], args: readonly string[], now?: number): string {
  const prompts = candidates.slice(0, 3).map((c) => (c.prompt ? JSON.stringify(promptText(c.prompt, 30)) : undefined));
  // Where the prompts cannot tell the lists apart (one prompt run twice, or none known), the sessions' state and age do.
  const alike = new Set(prompts).size < prompts.length;
  const shown = candidates.slice(0, 3).map((c, i) => {
    const when =
      alike && c.state !== undefined
        ? [c.lastActivity !== undefined && now !== undefined ? `${c.state} ${ago(c.lastActivity, now)}` : c.state]
        : [];
    const words = [...(prompts[i] === undefined ? [] : [prompts[i]]), ...when];
    return `${commandWithList(c.pasteId ?? c.shortId, args)}${words.length > 0 ? ` (${words.join(', ')})` : ''}`;
  });
  const more = candidates.length > 3 ? `, or ${candidates.length - 3} more (tasks lists)` : '';
  return `${shown.join(' or ')}${more}; tasks use <id> makes the choice stick`;
}

/** What a dry run could not decide: the real run needs the list named. */
export function renderDryRunNeeds(reason: string, candidates: readonly RefusalCandidate[], args: readonly string[], now?: number): string {
  const real = args.filter((a) => a !== '-n' && a !== '--dry-run');
  const how = candidates.length > 0 ? `: ${renderRefusalCommands(candidates, real, now)}` : '';
  return `a dry run: nothing changes. A real run would be refused (${oneLine(reason)})${how}`;
}
