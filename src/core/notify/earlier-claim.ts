/**
 * Events keyed otherwise by an earlier version: what was told under the old key is not
 * told again under the new one. Imports nothing: `tasks notify`'s sent state
 * (sent-state.ts) and the board's page (its notifications, page-notify.ts) read it alike.
 */

/**
 * The claim an earlier version of notify kept for the event `key` names, under the key it
 * had then, if any: that event was told, and a user who upgraded is not told it again.
 * - `agent-died` was keyed without the death's end: such a claim made after this end
 *   stands for this death (a later death, after a resume, ended after it was claimed).
 * - `work-left` was keyed by the end the transcript file's time gave, never before its
 *   last entry's: a claim of the same session whose end is at or after this one is this
 *   end's (an earlier end's is before it).
 */
export function earlierClaim(key: string, sent: Readonly<Record<string, number>>): string | undefined {
  const cut = key.lastIndexOf('|');
  const head = key.slice(0, cut + 1);
  const end = key.slice(cut + 1);
  if (key.startsWith('agent-died|')) {
    const claimedAt = sent[head.slice(0, -1)];
    return claimedAt !== undefined && (end === '' || claimedAt >= Number(end)) ? head.slice(0, -1) : undefined;
  }
  if (!key.startsWith('work-left|') || end === '') return undefined;
  for (const other of Object.keys(sent)) {
    if (other === key || !other.startsWith(head)) continue;
    const at = other.slice(head.length);
    if (/^\d+$/.test(at) && Number(at) >= Number(end)) return other;
  }
  return undefined;
}
