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

/**
 * The width of a terminal, the one rule for every output: the stream's own columns,
 * which can be 0 in a pseudo-terminal; then $COLUMNS; then 80.
 */
export function terminalColumns(streamColumns: number | undefined, env: NodeJS.ProcessEnv): number {
  return positive(streamColumns, env.COLUMNS) ?? 80;
}

/** The height, by the same rule: the stream's rows, then $LINES, then 24. */
function terminalRows(streamRows: number | undefined, env: NodeJS.ProcessEnv): number {
  return positive(streamRows, env.LINES) ?? 24;
}

/** The process's own terminal. */
export function processTerminal(env: NodeJS.ProcessEnv): Terminal {
  const out = process.stdout;
  const input = process.stdin;
  return {
    write: (text) => {
      out.write(text);
    },
    size: () => ({ width: terminalColumns(out.columns, env), height: terminalRows(out.rows, env) }),
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
