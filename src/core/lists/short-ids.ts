/**
 * Session UUIDs shown as git shows hashes: the shortest prefix, at least `min` characters,
 * that no other id shares, and that is read back as the start of a UUID
 * (mayBeSessionPrefix: so a UUID that begins with eight digits is shown as `12345678-9`).
 * Names that are not UUIDs are shown whole.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Can this typed text stand for the start of a session UUID? Only when it has the shape
 * of one (four hex characters or more, then hex and dashes) and holds a dash, or both a
 * decimal digit and a hex letter. Anything else is a name, always taken exactly: a build
 * or PR number (`4821`, `20240611`; about one UUID in seven begins with four digits) and
 * a word (`cafe`, `decade`) name the list an agent with that CLAUDE_CODE_TASK_LIST_ID
 * writes, never a session's. A name that mixes digits and hex letters (a commit hash)
 * can still be taken for a session's short id where one begins so: such lists are named
 * surely through the variable, which is read exactly.
 */
export function mayBeSessionPrefix(typed: string): boolean {
  const t = typed.trim().toLowerCase();
  if (!/^[0-9a-f]{4}[0-9a-f-]{0,32}$/.test(t)) return false;
  return t.includes('-') || (/[0-9]/.test(t) && /[a-f]/.test(t));
}

export function shortIds(ids: readonly string[], min = 8): Map<string, string> {
  const sorted = [...ids].sort();
  const short = new Map<string, string>();
  sorted.forEach((id, i) => {
    // Only the neighbours in sorted order can share the longest prefix with an id.
    short.set(id, shortened(id, Math.max(commonPrefix(id, sorted[i - 1]), commonPrefix(id, sorted[i + 1])), min));
  });
  return short;
}

/** One id's short form among `ids` (as shortIds gives it), without working out the others'. */
export function shortIdAmong(id: string, ids: Iterable<string>, min = 8): string {
  if (!UUID.test(id)) return id;
  let shared = 0;
  for (const other of ids) if (other !== id) shared = Math.max(shared, commonPrefix(id, other));
  return shortened(id, shared, min);
}

/** An id cut to the shortest prefix past the `shared` characters another id has too. */
function shortened(id: string, shared: number, min: number): string {
  if (!UUID.test(id)) return id;
  let length = Math.max(min, shared + 1);
  while (length < id.length && !mayBeSessionPrefix(id.slice(0, length))) length++;
  if (id[length - 1] === '-') length++; // never end on a dash
  return id.slice(0, Math.min(length, id.length));
}

function commonPrefix(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}
