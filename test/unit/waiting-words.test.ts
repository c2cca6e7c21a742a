/**
 * A session waiting for a person (Claude Code's live-session file says "status":"waiting"
 * and "waitingFor"): said as such, and not taken for a session at work.
 */
import { describe, expect, it } from 'vitest';
import { activityOf } from '../../src/core/sessions/live-sessions.js';
import { stateText } from '../../src/render/session-text.js';

const ID = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';

describe('a session waiting for a person', () => {
  it("its file's status is read as waiting; busy stays busy; anything else is idle", () => {
    expect(activityOf({ status: 'waiting' })).toBe('waiting');
    expect(activityOf({ status: 'busy' })).toBe('busy');
    expect(activityOf({ status: 'idle' })).toBe('idle');
    expect(activityOf({ status: undefined })).toBe('idle');
  });

  it('lists and the board say "live, waiting (permission prompt)"', () => {
    expect(stateText({ sessionId: ID, state: 'live', activity: 'waiting', waitingFor: 'permission prompt' })).toBe(
      'live, waiting (permission prompt)',
    );
    expect(stateText({ sessionId: ID, state: 'live', activity: 'waiting' })).toBe('live, waiting');
    expect(stateText({ sessionId: ID, state: 'live', activity: 'busy' })).toBe('live, busy');
  });

  it('a very long waitingFor is cut to 100 columns with an ellipsis, on one line', () => {
    const text = stateText({ sessionId: ID, state: 'live', activity: 'waiting', waitingFor: `${'x'.repeat(4999)}\nend` });
    expect(text).toBe(`live, waiting (${'x'.repeat(99)}…)`);
  });
});
