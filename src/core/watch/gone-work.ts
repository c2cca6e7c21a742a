import type { Task } from '../store/schema.js';
import type { ChangeEvent } from './watch-diff.js';

/**
 * Tasks seen to go away completed since the list last gained one. An interactive session
 * clears its finished list itself (about 5 s after its last task is completed, its turn
 * perhaps still going on): with no task left, these are the list's finished work, for a
 * watch's `all-completed` and notify's `list-completed` alike. A task that went away
 * unfinished forgets them, and none gone after it counts until the list gains a task: a
 * list's files go one by one, and one emptied with work open may be seen to lose its open
 * task first. A list that gains a task is judged on its new work.
 */
export class GoneWork {
  private done: Task[] = [];
  private openGone = false;

  /** The changes of one update; `seen`: which tasks gone count (a watch's: those it showed). */
  note(events: readonly ChangeEvent[], seen: (task: Task) => boolean = () => true): void {
    for (const e of events) {
      if (e.type === 'created') {
        this.done = [];
        this.openGone = false;
      }
      const gone = (e.type === 'list-cleared' ? e.tasks : e.type === 'deleted' ? [e.task] : []).filter(seen);
      if (gone.some((t) => t.status !== 'completed')) {
        this.done = [];
        this.openGone = true;
      } else if (!this.openGone) this.done.push(...gone);
    }
  }

  /** The completed tasks gone, with none gone unfinished among or after them; undefined when none. */
  get finished(): readonly Task[] | undefined {
    return this.done.length > 0 ? this.done : undefined;
  }
}
