import { type AttributedMessage, coveredMs, type Spell } from './cost-rule.js';
import { Tally } from './usage-tally.js';

/**
 * The rule's shares summed by group: by task, owner, list or session, and the whole. A
 * message counts once in a group, however many of its shares fall in it; a session's
 * time on two tasks of one group at once counts once (two tasks in progress for an hour
 * are an hour each, and an hour for their owner).
 */
export interface Grouping {
  /** The group of a task's share; undefined: left out. */
  share(list: string, task: string, session: string): string | undefined;
  /** The group of a session's unattributed work (`list`: the list it was on then, where known); undefined: left out. */
  unattributed(session: string, list: string | undefined): string | undefined;
}

export function tallyBy(messages: readonly AttributedMessage[], spells: readonly Spell[], grouping: Grouping): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  const tallyOf = (group: string) => {
    let t = tallies.get(group);
    if (t === undefined) tallies.set(group, (t = new Tally()));
    return t;
  };
  for (const { session, message, shares } of messages) {
    if (shares.length === 0) {
      const group = grouping.unattributed(session, message.list);
      if (group === undefined) continue;
      const t = tallyOf(group);
      t.add(message.bucket, message.tokens);
      t.messages++;
      continue;
    }
    const counted = new Set<string>();
    for (const share of shares) {
      const group = grouping.share(share.list, share.task, session);
      if (group === undefined) continue;
      const t = tallyOf(group);
      t.add(message.bucket, share.tokens);
      if (!counted.has(group)) {
        counted.add(group);
        t.messages++;
      }
    }
  }
  // Time: per group and session, the time covered by that session's spells in the group.
  const bySessionAndGroup = new Map<string, Map<string, Spell[]>>();
  for (const s of spells) {
    const group = grouping.share(s.list, s.task, s.session);
    if (group === undefined) continue;
    let groups = bySessionAndGroup.get(s.session);
    if (groups === undefined) bySessionAndGroup.set(s.session, (groups = new Map()));
    groups.set(group, [...(groups.get(group) ?? []), s]);
  }
  for (const groups of bySessionAndGroup.values())
    for (const [group, own] of groups) {
      const t = tallyOf(group);
      t.activeMs += coveredMs(own);
      t.unsureMs += coveredMs(own.flatMap((s) => s.unsure ?? []));
    }
  return tallies;
}

/** Every share and all unattributed work in one group. */
export const WHOLE: Grouping = { share: () => '', unattributed: () => '' };
