/**
 * Text that arrives in chunks (a pipe, a socket) cut into whole lines: each chunk is
 * pushed, each complete line (without its newline) handed on as soon as it is whole, and
 * what is left after the last newline kept for the next chunk (`rest()` at the end).
 * The JSON-lines channels to and from a host all read this way.
 */
export interface LineSplitter {
  push(chunk: string): void;
  /** What came after the last newline, taken out. */
  rest(): string;
}

export function lineSplitter(onLine: (line: string) => void): LineSplitter {
  let pending = '';
  return {
    push(chunk) {
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        onLine(line);
      }
    },
    rest() {
      const left = pending;
      pending = '';
      return left;
    },
  };
}
