import { ancestorsOf } from './pipe-has-reader.js';

/**
 * Whether a session found at work on a list is the one this command runs in (an agent
 * waiting on its teammates from its own shell, a hook of its own): its session id is
 * ours, or its process is above ours. That session is busy for as long as the command
 * runs, so a gate that waits for the list's sessions never waits for it.
 */
export function ownSessionTest(env: NodeJS.ProcessEnv): (s: { sessionId?: string | undefined; pid?: number | undefined }) => boolean {
  const own = env.CLAUDE_CODE_SESSION_ID;
  let above: Set<number> | undefined;
  return (s) => (own !== undefined && s.sessionId === own) || (s.pid !== undefined && (above ??= ancestorsOf(process.pid)).has(s.pid));
}
