import { type BindOutcome, bindHere } from '../binding/bind-here.js';
import { type BindingTarget, bindingTarget } from '../binding/binding-target.js';
import { type BindingRead, readBinding } from '../binding/project-binding.js';
import type { SettingsPlaces } from '../binding/settings-files.js';

import { liveSessionLists, sessionsMoved } from '../sessions/live-lists.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { recordMoves } from '../sessions/session-moves.js';
import { listToBind } from './missing-list.js';

/** `tasks use` with no list: the binding in effect in `cwd`, and the file `tasks use <list>` would write. */
export function projectBinding(cwd: string, places: SettingsPlaces): BindingRead & { target: BindingTarget } {
  return { ...readBinding(cwd, places), target: bindingTarget(cwd, places) };
}

/** What `tasks use <list>` and `tasks use --clear` did. */
export interface ListUse {
  /** The list bound (undefined: the binding was removed), as the name given resolves, with lists of a like name. */
  wanted: { id: string; exists: boolean; near: string[] } | undefined;
  outcome: BindOutcome;
  /** Sessions running there that the change moves to another list at their next task call. */
  moved: Array<{ session: SessionInfo; from: string; to: string }>;
  /** Why the moves could not be recorded (each list's history then cannot split the session's changes at the move). */
  movesNotRecorded?: string;
}

/**
 * Bind the project at `cwd` to the list `raw` names (undefined: remove the binding), in
 * the settings Claude Code reads there; the sessions running there are looked at before
 * and after, to name those the change moves.
 */
export function useList(cwd: string, places: SettingsPlaces, raw: string | undefined, sessions: SessionIndex, now: number): ListUse {
  const wanted = raw === undefined ? undefined : listToBind(places.configDir, raw, sessions);
  const running = liveSessionLists(sessions);
  const outcome = bindHere(cwd, places, wanted?.id);
  const moved = outcome.write.changed ? sessionsMoved(sessions, running) : [];
  // Recorded, so that each list's history takes a moved session's changes from its side of the move.
  const movesNotRecorded = recordMoves(
    places.configDir,
    moved.map((m) => ({ session: m.session.sessionId, from: m.from, to: m.to, at: now })),
  );
  return { wanted, outcome, moved, ...(movesNotRecorded === undefined ? {} : { movesNotRecorded }) };
}
