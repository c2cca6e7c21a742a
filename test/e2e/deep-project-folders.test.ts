/**
 * Claude Code names a project folder after its directory, cut at 200 characters and told
 * apart by a hash of the whole directory (checked against 2.1.328: the name below is the
 * one it made). A session that ran in a directory that deep must still be the project's:
 * its list is the one `tasks list` reads there, and the one a change there goes to, not
 * another project's list changed more recently. Through the built binary, twice: the
 * second run takes the project's sessions from what the first kept (kept-choice.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectFolderName } from '../../src/core/sessions/project-folders.js';
import { run, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { writeTranscript } from '../helpers/session-files.mjs';

const SESSION = '53791fc0-22f8-4fd4-9460-31b2c254b56a';
const OTHER = '0d1e2f30-4a5b-4c6d-8e7f-a0b1c2d3e4f5';
const SEGMENTS = Array.from({ length: 9 }, (_, i) => `averyveryverylongfoldername${String(i + 1).padStart(2, '0')}`);

describe('a session in a directory deeper than a project folder name holds', () => {
  it("names the folder as Claude Code does: cut at 200 characters, the directory's hash after it", () => {
    const dir = `/tmp/r7-long-T9Sb/home/${SEGMENTS.join('/')}`;
    // The folder Claude Code 2.1.328 made for a session run in `dir`.
    expect(projectFolderName(dir)).toBe(
      '-tmp-r7-long-T9Sb-home-averyveryverylongfoldername01-averyveryverylongfoldername02-averyveryverylongfoldername03-averyveryverylongfoldername04-averyveryverylongfoldername05-averyveryverylongfoldername-e81c94',
    );
    expect(projectFolderName('/tmp/sess/work/myproj')).toBe('-tmp-sess-work-myproj');
  });

  it("is the project's: list reads its list and create writes there, kept or worked out", () => {
    const config = tempConfig();
    const deep = path.join(config, 'home', ...SEGMENTS);
    const elsewhere = path.join(config, 'home', 'elsewhere');
    fs.mkdirSync(deep, { recursive: true });
    fs.mkdirSync(elsewhere, { recursive: true });
    const now = Date.now();
    writeTranscript(config, {
      sessionId: SESSION,
      cwd: deep,
      prompt: 'deep work',
      todos: false,
      start: now - 3_600_000,
      end: now - 3_000_000,
    });
    writeTask(path.join(config, 'tasks', SESSION), {
      id: '1',
      subject: 'Deep task',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    // Another project's list, changed after the deep one: the most recently changed list.
    writeTranscript(config, {
      sessionId: OTHER,
      cwd: elsewhere,
      prompt: 'other work',
      todos: false,
      start: now - 120_000,
      end: now - 60_000,
    });
    writeTask(path.join(config, 'tasks', OTHER), {
      id: '1',
      subject: 'Other task',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    const old = new Date(now - 3_000_000);
    fs.utimesSync(path.join(config, 'tasks', SESSION, '1.json'), old, old);
    // Past the cache's settling time, so that the first run keeps what it worked out.
    const env = { TASKS_NOW: String(now + 5_000) };

    for (const pass of ['worked out', 'kept']) {
      const list = run(config, ['list', '--json'], { cwd: deep, env });
      expect({ pass, code: list.code }).toEqual({ pass, code: 0 });
      expect(JSON.parse(list.stdout).map((t: { subject: string }) => t.subject)).toEqual(['Deep task']);
      expect(stderrText(list.stderr)).toContain('53791fc0');
    }
    const create = run(config, ['create', 'Next deep task'], { cwd: deep, env });
    expect(create.stderr).not.toContain('error');
    expect(create.code).toBe(0);
    expect(fs.readdirSync(path.join(config, 'tasks', SESSION)).sort()).toContain('2.json');
    expect(fs.readdirSync(path.join(config, 'tasks', OTHER)).filter((f) => f.endsWith('.json'))).toEqual(['1.json']);
  });
});
