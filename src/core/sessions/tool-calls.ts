import fs from 'node:fs';
import { OpenToolCalls } from '../base/open-tool-calls.js';
import { openRegular, parseObject, tailLinesOf } from './jsonl-window.js';

/** How much of a transcript's end is read: a tool call's entry and what follows it while it runs. */
const TAIL_BYTES = 512 * 1024;

/**
 * Does this transcript end inside a tool call (a `tool_use` awaiting its result)? Reads
 * only its last part; a missing or unreadable transcript does not.
 */
export function endsInToolCall(transcript: string | undefined): boolean {
  if (transcript === undefined) return false;
  let fd: number | undefined;
  try {
    const file = openRegular(transcript);
    fd = file.fd;
    const calls = new OpenToolCalls();
    for (const line of tailLinesOf(file.fd, file.size, TAIL_BYTES)) {
      const entry = parseObject(line);
      if (entry !== undefined) calls.apply(entry);
    }
    return calls.any;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
