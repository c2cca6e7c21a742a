import { countTasks } from '../core/graph/blockers.js';
import type { FileProblem } from '../core/store/list-read.js';
import type { ChangeEvent } from '../core/watch/watch-diff.js';
import { renderChangeEvent, renderEndEvent, renderSnapshotEvent, type EndReason } from '../render/watch-events.js';
import type { App } from './app.js';
import type { WatchSink, WatchView } from './watch-session.js';

/**
 * `watch --json`, or a watch whose stdout is not a terminal: NDJSON on stdout, one event
 * per line, written as soon as it is known. Unreadable files are warned about on stderr,
 * once each until they read again.
 */
export class StreamSink implements WatchSink {
  private warned = new Set<string>();

  constructor(
    private readonly app: App,
    private readonly listId: string,
    private readonly until: string | undefined,
  ) {}

  private stopFollowing: (() => void) | undefined;

  begin(view: WatchView): void {
    this.app.out(renderSnapshotEvent(view.at, this.listId, view.exists, view.shown));
    // Between changes nothing is written, so a reader that went away would go unnoticed.
    this.stopFollowing = this.app.followReader();
    this.warnProblems(view.problems);
  }

  change(view: WatchView, events: ChangeEvent[]): void {
    for (const e of events) this.app.out(renderChangeEvent(view.at, e));
    this.warnProblems(view.problems);
  }

  end(view: WatchView, reason: EndReason, met: boolean): void {
    this.stopFollowing?.();
    this.app.out(
      renderEndEvent({
        at: view.at,
        reason,
        until: this.until,
        met,
        exists: view.exists,
        counts: countTasks(view.shown, view.index),
        tasks: view.shown,
      }),
    );
  }

  warn(message: string): void {
    this.app.warn(message);
  }

  private warnProblems(problems: readonly FileProblem[]): void {
    const now = new Set<string>();
    for (const p of problems) {
      now.add(p.file);
      if (!this.warned.has(p.file)) this.app.warn(`skipped ${p.file}: ${p.reason} (no events for it until it reads again)`);
    }
    this.warned = now;
  }
}
