import type { WarningCode } from '../base/notices.js';

/** What was wrong with a line of a run's input. */
export type LineWarningKind = 'not-json' | 'not-object' | 'task-call';

/** The lines of a kind, in words: "N lines {that}". */
const THAT: Record<LineWarningKind, string> = {
  'not-json': 'that were not JSON',
  'not-object': 'that were JSON but not an object',
  'task-call': 'whose task tool call could not be read',
};

/** How many warnings of a kind are said in full. */
export const LINE_WARNINGS_SHOWN = 5;

type Warn = (message: string, code?: WarningCode, facts?: Record<string, unknown>) => void;

/**
 * Warnings about a run's input lines, kept in bounds: an input of binary garbage or plain
 * text would otherwise be one warning a line (megabytes of stderr). The first few of each
 * kind are said in full, then one warning says that more are counted (`warnings_limited`),
 * and `finish` says how many there were (`lines_skipped`), once, when the input or the
 * watch ends. Each is still one warning, so a `--json` stderr stays one object a line.
 */
export class LineWarnings {
  private readonly counts = new Map<LineWarningKind, number>();

  constructor(
    private readonly warn: Warn,
    private readonly shown = LINE_WARNINGS_SHOWN,
  ) {}

  add(kind: LineWarningKind, message: string): void {
    const count = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, count);
    if (count <= this.shown) this.warn(message);
    else if (count === this.shown + 1)
      this.warn(`more lines ${THAT[kind]}: counted, not shown; how many comes at the end`, 'warnings_limited', {
        kind,
        shown: this.shown,
      });
  }

  /** The counts of the kinds that went past their limit, said once. */
  finish(): void {
    for (const [kind, count] of this.counts) {
      if (count > this.shown)
        this.warn(`${count} lines ${THAT[kind]}: skipped (the first ${this.shown} said above)`, 'lines_skipped', { kind, count });
    }
    this.counts.clear();
  }
}
