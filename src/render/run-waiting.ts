import { formatDuration } from './duration.js';
import { oneLine, truncate } from './text.js';

/** What `tasks run` waits for before its live view can show a list. */
export interface RunWaiting {
  /** The agent's command, and its pid once started. */
  command: string;
  pid: number | undefined;
  /** A list was named (-l, CLAUDE_CODE_TASK_LIST_ID): the run waits for the agent's output, not for its session. */
  listNamed: boolean;
  /** Since the agent was started. */
  elapsedMs: number;
  /** The list named does not exist (yet): `list "build-9" does not exist yet (did you mean build-99?)`. */
  missing?: string | undefined;
}

/**
 * The line a run shows in a terminal until the agent's first output lets its view begin:
 * `⠋ waiting for claude (pid 4242) to say its session… 5s`, with a list named `… to begin
 * its run… 5s`; a list named that is not there is said first, as what matters most.
 */
export function renderRunWaiting(w: RunWaiting, spinner: string, width: number): string {
  const agent = w.pid === undefined ? oneLine(w.command) : `${oneLine(w.command)} (pid ${w.pid})`;
  const what = w.listNamed ? 'to begin its run' : 'to say its session';
  const seconds = formatDuration(Math.floor(w.elapsedMs / 1000) * 1000);
  const missing = w.missing === undefined ? '' : `${w.missing}; `;
  // One column short of the width: a line that fills it would wrap the cursor on some terminals.
  return truncate(`${spinner} ${missing}waiting for ${agent} ${what}… ${seconds}`, Math.max(10, width - 1));
}
