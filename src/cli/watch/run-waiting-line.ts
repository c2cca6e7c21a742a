import type { Clock } from '../../core/base/clock.js';
import { type RunWaiting, renderRunWaiting } from '../../render/run-waiting.js';
import { SPINNER_INTERVAL_MS, spinnerFrame } from '../../render/watch-rows.js';

/** Where the line is drawn (stderr's terminal), and how wide it is. */
interface LineTerminal {
  write(text: string): void;
  columns(): number;
}

/** Back to the line's start, and the line erased. */
const ERASE = '\r\u001b[2K';

/**
 * The line `tasks run` shows in a terminal while nothing else can be: from the agent's
 * start until its first output lets the live view begin. Redrawn in place with its
 * spinner and the time waited; erased (never left behind) when the view begins, when
 * anything else is written to the terminal (`clear`, then it is drawn again at the next
 * tick), and when the run ends.
 */
export class WaitingLine {
  private timer: NodeJS.Timeout | undefined;
  private shown = false;
  private stopped = false;
  private readonly eraseOnExit = () => this.clear();

  constructor(
    private readonly term: LineTerminal,
    private readonly clock: Clock,
    private readonly state: () => RunWaiting,
  ) {}

  start(): void {
    if (this.stopped || this.timer !== undefined) return;
    process.once('exit', this.eraseOnExit);
    this.draw();
  }

  /** Erased for a moment: another line is about to be written. */
  clear(): void {
    if (!this.shown) return;
    this.shown = false;
    this.term.write(ERASE);
  }

  /** Erased for good. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    process.off('exit', this.eraseOnExit);
    this.clear();
  }

  private draw(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    this.term.write(`${ERASE}${renderRunWaiting(this.state(), spinnerFrame(now), this.term.columns())}`);
    this.shown = true;
    this.timer = setTimeout(() => this.draw(), SPINNER_INTERVAL_MS - (now % SPINNER_INTERVAL_MS) + 1);
    this.timer.unref();
  }
}
