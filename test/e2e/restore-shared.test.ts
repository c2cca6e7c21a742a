/**
 * tasks restore and lists --all with a list that sessions share through
 * CLAUDE_CODE_TASK_LIST_ID: a transcript never names its list, and once the folder is
 * gone no file ties a session to it, so what the transcripts show of each other's tasks
 * has to.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { type TranscriptOptions, writeTaskTranscript } from '../helpers/task-transcript.js';

const OWNER = '0a1b2c3d-1111-4222-8333-944455556666';
const READER = '0a1b2c3d-2222-4222-8333-944455556666';
const FRESH = '0a1b2c3d-3333-4222-8333-944455556666';
const HOUR = 3_600_000;

interface FileTask {
  id: string;
  subject: string;
}
const tasksOf = (config: string, list: string) =>
  fs
    .readdirSync(path.join(config, 'tasks', list))
    .filter((f) => f.endsWith('.json'))
    .map((f) => readJson(path.join(config, 'tasks', list, f)) as FileTask)
    .sort((a, b) => Number(a.id) - Number(b.id));

/** A session's transcript, its entries' uuids its own (as Claude Code makes them: unique). */
function transcript(config: string, o: TranscriptOptions): void {
  const file = writeTaskTranscript(config, o);
  const stat = fs.statSync(file);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/"uuid":"/g, `"uuid":"${o.sessionId}-`));
  fs.utimesSync(file, stat.atime, stat.mtime);
}

describe('restore: a list shared through the environment', () => {
  it('a session that worked on the list through the variable (its tasks seen by id and subject) is read too; no id it saw is handed out again', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'lib');
    fs.mkdirSync(cwd, { recursive: true });
    const t0 = Date.now() - 5 * HOUR;
    // The list's own session: #1-#4, #4 deleted.
    transcript(config, {
      sessionId: OWNER,
      cwd,
      start: t0,
      calls: [
        { create: { id: '1', subject: 'A' } },
        { create: { id: '2', subject: 'B' } },
        { create: { id: '3', subject: 'C' } },
        { create: { id: '4', subject: 'D' } },
        { update: { taskId: '4', status: 'deleted' } },
      ],
    });
    // Another session on the same list (CLAUDE_CODE_TASK_LIST_ID=<owner>): it read the list, then made #5.
    transcript(config, {
      sessionId: READER,
      cwd,
      start: t0 + HOUR,
      calls: [
        {
          list: [
            { id: '1', subject: 'A' },
            { id: '2', subject: 'B' },
            { id: '3', subject: 'C' },
            // Made by a session whose transcript is gone: never restored, but its id was used.
            { id: '20', subject: 'Z' },
          ],
        },
        { create: { id: '5', subject: 'E' } },
      ],
    });
    // The folder was removed, and a third session on the list started it again from #1.
    transcript(config, { sessionId: FRESH, cwd, start: t0 + 2 * HOUR, calls: [{ create: { id: '1', subject: 'Fresh' } }] });
    const dir = path.join(config, 'tasks', OWNER);
    writeTask(dir, { id: '1', subject: 'Fresh', description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(dir, '1.json'), (t0 + 2 * HOUR + 1500) / 1000, (t0 + 2 * HOUR + 1500) / 1000);

    const r = runInProcessSync(config, ['restore', '--session', OWNER, '--json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.sources.map((s: { sessionId: string }) => s.sessionId)).toContain(READER);
    expect(
      tasksOf(config, OWNER)
        .map((t) => t.subject)
        .sort(),
    ).toEqual(['A', 'B', 'C', 'E', 'Fresh']);
    expect(Number(report.mark.after)).toBeGreaterThanOrEqual(20);
    const next = runInProcessSync(config, ['-l', OWNER, 'create', 'Next']);
    expect(next.code).toBe(0);
    expect(Number(next.stdout.trim())).toBeGreaterThan(
      Math.max(
        20,
        ...tasksOf(config, OWNER)
          .filter((t) => t.subject !== 'Next')
          .map((t) => Number(t.id)),
      ),
    );
    expect(stderrText(r.stderr)).not.toMatch(/may hold more/);
  });

  it('lists --all shows no own list for a session whose calls went to a list named otherwise; restore -l <name> names the sessions to read', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'shared');
    fs.mkdirSync(cwd, { recursive: true });
    const t0 = Date.now() - 5 * HOUR;
    // Two sessions on CLAUDE_CODE_TASK_LIST_ID=proj; the folder tasks/proj was removed since.
    transcript(config, {
      sessionId: OWNER,
      cwd,
      start: t0,
      calls: [{ create: { id: '1', subject: 'S1 first' } }, { create: { id: '2', subject: 'S1 second' } }],
    });
    transcript(config, {
      sessionId: READER,
      cwd,
      start: t0 + HOUR,
      calls: [{ create: { id: '3', subject: 'S2 third' } }, { update: { taskId: '1', status: 'completed' } }],
    });
    const gone = runInProcessSync(config, ['lists', '--all', '--json'], { cwd });
    expect(gone.code, gone.stderr).toBe(0);
    const rows = JSON.parse(gone.stdout) as Array<{ id: string; kind: string; unsure?: boolean }>;
    // Its first TaskCreate was #3: the list it wrote was there before it, so never its own.
    expect(rows.map((r) => r.id)).not.toContain(READER);
    // Its own list or the one the other wrote into: the transcripts cannot tell, and the row says so.
    expect(rows.find((r) => r.id === OWNER)).toMatchObject({ kind: 'gone', unsure: true });
    const text = runInProcessSync(config, ['lists', '--all'], { cwd });
    expect(text.stderr).toContain(`--from ${READER}`);

    const r = runInProcessSync(config, ['-l', 'proj', 'restore', '--dry-run'], { cwd });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`tasks -l proj restore --from ${READER} --from ${OWNER}`);
    expect(fs.existsSync(path.join(config, 'tasks', 'proj'))).toBe(false);
    const restored = runInProcessSync(config, ['-l', 'proj', 'restore', '--from', READER, '--from', OWNER], { cwd });
    expect(restored.code, restored.stderr).toBe(0);
    expect(tasksOf(config, 'proj').map((t) => [t.id, t.subject])).toEqual([
      ['1', 'S1 first'],
      ['2', 'S1 second'],
      ['3', 'S2 third'],
    ]);
  });
});
