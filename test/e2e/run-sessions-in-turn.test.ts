/**
 * `tasks run` with a script that runs sessions one after another (plan, then resume): the
 * run is judged at the last one's result, never at the first's, whether the next one is
 * the same session in a new process (its live-session file may come seconds before its
 * first line) or a session unknown here. Scripted in bash, through the built binary.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempConfig } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';

const SESSION = '33333333-3333-4333-8333-333333333333';

/** A stand-in for `claude -p` run twice: the first succeeds; the second, 3 s later, fails. */
function script(config: string, opts: { sameSession: boolean; fileFirst: boolean; slowExitS?: number }): string {
  const file = path.join(config, 'in-turn.sh');
  const second = opts.sameSession ? SESSION : '55555555-3333-4333-8333-333333333333';
  fs.mkdirSync(path.join(config, 'sessions'), { recursive: true });
  fs.mkdirSync(path.join(config, 'projects', '-tmp'), { recursive: true });
  fs.writeFileSync(
    file,
    `#!/bin/bash
SD="$CLAUDE_CONFIG_DIR/sessions"; TR="$CLAUDE_CONFIG_DIR/projects/-tmp"
fake() { # session, seconds before its first line, whether its live-session file comes first, subtype, is_error
  bash -c '
    me=$$; now=$(date +%s%3N)
    live() { echo "{\\"pid\\":$me,\\"sessionId\\":\\"$1\\",\\"cwd\\":\\"/tmp\\",\\"startedAt\\":$now,\\"updatedAt\\":$now}" > "$SD/$me.json"; }
    [ "$3" = 1 ] && live "$1"; sleep "$2"; live "$1"
    echo "{\\"type\\":\\"user\\",\\"sessionId\\":\\"$1\\",\\"cwd\\":\\"/tmp\\",\\"timestamp\\":\\"2026-12-05T02:00:00Z\\",\\"message\\":{\\"role\\":\\"user\\",\\"content\\":\\"go\\"}}" >> "$TR/$1.jsonl"
    echo "{\\"type\\":\\"system\\",\\"subtype\\":\\"init\\",\\"session_id\\":\\"$1\\"}"; sleep 0.3
    echo "{\\"type\\":\\"result\\",\\"subtype\\":\\"$4\\",\\"is_error\\":$5}"; sleep "$6"; rm -f "$SD/$me.json"' fake "$@"
}
export SD TR
fake ${SESSION} 0 0 success false ${opts.slowExitS ?? 0}
fake ${second} 3 ${opts.fileFirst ? 1 : 0} error_during_execution true 0
`,
    { mode: 0o755 },
  );
  return file;
}

function runScript(config: string, file: string, known = true) {
  if (!known) fs.rmSync(path.join(config, 'projects'), { recursive: true, force: true });
  return spawnSync(process.execPath, [BIN, '-l', 'in-turn', 'run', '--json', '--', 'bash', file], {
    env: baseEnv(config),
    cwd: config,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('tasks run: sessions in turn in one command', () => {
  it.each([
    ['the same session resumed, its live-session file seconds before its first line', { sameSession: true, fileFirst: true }],
    ['another session', { sameSession: false, fileFirst: false }],
    // A first session slow to exit after its result (a loaded machine, a SessionEnd hook): it is in a script, which goes on.
    ['the same session resumed after the first process took 4 s to exit', { sameSession: true, fileFirst: true, slowExitS: 4 }],
  ])('%s: judged at the last result (an error: exit 1), never passed at the first', (_, opts) => {
    const config = tempConfig();
    const r = runScript(config, script(config, opts));
    expect(r.status, r.stderr).toBe(1);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'run', verdict: 'agent-failed', result: { isError: true } });
  });

  it("a session unknown here (no session files): the same, the agent being tasks run's own", () => {
    const config = tempConfig();
    const file = script(config, { sameSession: false, fileFirst: false });
    // The script writes no files this time: its stream alone.
    fs.writeFileSync(
      file,
      `#!/bin/bash
echo '{"type":"system","subtype":"init","session_id":"44444444-3333-4333-8333-333333333333"}'
echo '{"type":"result","subtype":"success","is_error":false}'
sleep 3
echo '{"type":"system","subtype":"init","session_id":"66666666-3333-4333-8333-333333333333"}'
echo '{"type":"result","subtype":"error_during_execution","is_error":true}'
`,
    );
    const r = runScript(config, file, false);
    expect(r.status, r.stderr).toBe(1);
  });
});
