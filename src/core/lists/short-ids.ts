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
    if (!UUID.test(id)) {
      short.set(id, id);
      return;
    }
    // Only the neighbours in sorted order can share the longest prefix with an id.
    const shared = Math.max(commonPrefix(id, sorted[i - 1]), commonPrefix(id, sorted[i + 1]));
    let length = Math.max(min, shared + 1);
    while (length < id.length && !mayBeSessionPrefix(id.slice(0, length))) length++;
    if (id[length - 1] === '-') length++; // never end on a dash
    short.set(id, id.slice(0, Math.min(length, id.length)));
  });
  return short;
}

function commonPrefix(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}
