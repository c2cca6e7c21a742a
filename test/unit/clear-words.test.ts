/**
 * How a /clear is said: known (the same process seen on both sessions, or their
 * transcripts naming one process), or "probably" (times alone), in every place that says it.
 */
import { describe, expect, it } from 'vitest';
import { clearOf } from '../../src/core/sessions/cleared-lists.js';
import { endOf } from '../../src/core/sessions/gone-owners.js';
import { SessionIndex, type SessionInfo } from '../../src/core/sessions/session-index.js';
import { stateText } from '../../src/render/session-text.js';
import { renderSessionCleared, watchEndMessage } from '../../src/render/watch-outcome.js';
import { tempConfig } from '../helpers/cli.js';

const OLD = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const NEW = '7baec0ff-1111-4a4a-8b8b-000000000002';
const session = (clearProof: SessionInfo['clearProof']): SessionInfo => ({
  sessionId: OLD,
  state: 'ended',
  replacedBy: NEW,
  clearProof,
});

describe('cleared, or probably cleared', () => {
  it('one answer: sure by the process or the transcripts, not by times', () => {
    expect(clearOf(session('process'))).toEqual({ sessionId: OLD, newSessionId: NEW, proof: 'process', sure: true });
    expect(clearOf(session('transcripts'))?.sure).toBe(true);
    expect(clearOf(session('times'))?.sure).toBe(false);
    expect(clearOf({ sessionId: OLD, replacedBy: undefined, clearProof: undefined })).toBeUndefined();
  });

  it('lists and the board: "cleared → 7baec0ff", or "probably cleared → 7baec0ff"', () => {
    expect(stateText(session('transcripts'))).toBe('cleared → 7baec0ff');
    expect(stateText(session('times'))).toBe('probably cleared → 7baec0ff');
  });

  it("an owner's end: was cleared only when known", () => {
    const index = new SessionIndex(tempConfig());
    expect(endOf(index, session('process'), OLD).why).toBe('session 2d483082 was cleared');
    expect(endOf(index, session('times'), OLD).why).toBe('session 2d483082 ended');
  });

  it('watch: the note and the end say probably where times alone tie the sessions', () => {
    const change = { sessionId: OLD, newSessionId: NEW, to: NEW, followed: true };
    const name = (id: string) => id.slice(0, 8);
    expect(renderSessionCleared({ ...change, sure: true }, name, 0)).toBe('session 2d483082 cleared: now following list 7baec0ff');
    expect(renderSessionCleared({ ...change, sure: false }, name, 0)).toBe(
      'session 2d483082 probably cleared (by times alone): now following list 7baec0ff',
    );
    const counts = { total: 1, pending: 1, in_progress: 0, completed: 0 } as Parameters<typeof watchEndMessage.cleared>[3];
    expect(watchEndMessage.cleared(OLD, false, 'all-completed', counts)).toMatch(
      /^session 2d483082 was probably cleared \(\/clear, by times alone\) and left this list/,
    );
  });
});
