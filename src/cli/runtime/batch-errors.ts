import { TasksError } from '../../core/base/errors.js';
import { exitCodeFor } from './exit-codes.js';
import type { IO } from './io.js';

/**
 * Commands that handle several items (`delete 3 4 5`, `release 1 2`, `check --all`): each
 * item is done and reported on its own, and the exit status is the worst. An item's error
 * is in one place: with --json, in its item on stdout (`ok: false`, `error: {code,
 * message, ...facts}`), and stderr then holds only one summary error naming the failed
 * items; without --json, each failure is a line on stderr, as every error is.
 */
export class BatchErrors {
  private readonly failed: Array<{ id: string; code: TasksError['code'] }> = [];

  constructor(
    private readonly io: IO,
    /** What an item is, for the summary: "id", "list". */
    private readonly noun: string,
  ) {}

  /** Record a failed item; returns its error object for the item. Errors that are not TasksErrors are rethrown. */
  item(id: string, err: unknown): { code: string; message: string } & Record<string, unknown> {
    if (!(err instanceof TasksError)) throw err;
    this.failed.push({ id, code: err.code });
    if (this.io.json) this.io.setExit(exitCodeFor(err.code));
    else this.io.fail(err);
    return { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}), ...err.details };
  }

  /** After the batch's document: with --json, the one summary error when any item failed. */
  summarize(total: number): void {
    if (!this.io.json || this.failed.length === 0) return;
    const worst = this.failed.reduce((a, b) => (exitCodeFor(b.code) > exitCodeFor(a.code) ? b : a));
    const which = this.failed.map((f) => f.id).join(', ');
    this.io.fail(
      new TasksError(
        worst.code,
        `${this.failed.length} of ${total} failed (${this.noun} ${which}); each failed item's error is in the output`,
        {
          details: { failed: this.failed.map((f) => f.id) },
        },
      ),
    );
  }
}
