/**
 * The terminal a full-screen command draws on: output, size, resizes and key presses.
 * An interface so that the live view can be driven without a terminal.
 */
export interface Terminal {
  write(text: string): void;
  size(): { width: number; height: number };
  /** Calls `fn` on every resize (SIGWINCH); returns the unsubscribe. */
  onResize(fn: () => void): () => void;
  /**
   * Key presses, read in raw mode when stdin is a terminal (Ctrl-C then arrives as a
   * key, "\u0003", not as SIGINT; typed keys are not echoed over the view). Returns
   * the function that restores stdin.
   */
  onKey(fn: (key: string) => void): () => void;
}

function positive(...values: Array<number | string | undefined>): number | undefined {
  for (const v of values) {
    const n = typeof v === 'string' ? Number.parseInt(v, 10) : v;
    if (n !== undefined && Number.isFinite(n) && n > 0) return n;
  }
  return undefined;
}

/** The process's own terminal. `columns` can be 0 in a pseudo-terminal: then $COLUMNS, then 80. */
export function processTerminal(env: NodeJS.ProcessEnv): Terminal {
  const out = process.stdout;
  const input = process.stdin;
  return {
    write: (text) => {
      out.write(text);
    },
    size: () => ({
      width: positive(out.columns, env.COLUMNS) ?? 80,
      height: positive(out.rows, env.LINES) ?? 24,
    }),
    onResize: (fn) => {
      out.on('resize', fn);
      return () => out.off('resize', fn);
    },
    onKey: (fn) => {
      if (!input.isTTY) return () => {};
      const onData = (data: Buffer | string) => fn(String(data));
      input.setRawMode(true);
      input.setEncoding('utf8');
      input.on('data', onData);
      input.resume();
      return () => {
        input.off('data', onData);
        input.setRawMode(false);
        input.pause();
      };
    },
  };
}
