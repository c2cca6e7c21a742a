/**
 * A 1.9 MB task whose `blocks` holds about 200,000 ids of tasks that do not exist: check,
 * check --json and check --fix read, report and repair it through the built binary, and
 * notify still tells damage on that list. Every one of these died with "Maximum call
 * stack size exceeded" (a spread of the findings into push) before; --fix, once past
 * that, ran for minutes (each finding grouped by copying its group, and looked up in the
 * dropped ones by a scan).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';
import { notifyEnv } from '../helpers/notify.js';

const N = 200_000;

function bigList(): { config: string; dir: string } {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'big');
  fs.mkdirSync(dir, { recursive: true });
  const blocks = Array.from({ length: N - 2 }, (_, i) => String(i + 2));
  fs.writeFileSync(
    path.join(dir, '1.json'),
    // Spaced as Python's json.dump writes it: the 1.9 MB file of the report.
    JSON.stringify({ id: '1', subject: 'many refs', description: '', status: 'pending', blocks, blockedBy: [] }).replaceAll('","', '", "'),
  );
  expect(fs.statSync(path.join(dir, '1.json')).size).toBeGreaterThan(1_800_000);
  return { config, dir };
}

describe('check on a task with 200,000 missing references', () => {
  it('check and check --json report every one; check --fix drops them all', () => {
    const { config, dir } = bigList();
    const text = run(config, ['-l', 'big', 'check'], { timeoutMs: 120_000 });
    expect(text.stderr).not.toMatch(/call stack/);
    expect(text.code, text.stderr.slice(0, 500)).toBe(0);
    expect(text.stdout).toContain('task #1 lists #199999 in blocks, but there is no task #199999');

    const json = run(config, ['-l', 'big', 'check', '--json'], { timeoutMs: 120_000 });
    expect(json.code, json.stderr.slice(0, 500)).toBe(0);
    const report = JSON.parse(json.stdout) as { findings: Array<{ code: string }> };
    expect(report.findings).toHaveLength(N - 2);
    expect(report.findings.every((f) => f.code === 'missing_reference')).toBe(true);

    const fix = run(config, ['-l', 'big', 'check', '--fix'], { timeoutMs: 240_000 });
    expect(fix.code, fix.stderr.slice(0, 500)).toBe(0);
    expect(fix.stderr).toContain(`${N - 2} found, ${N - 2} fixed; nothing left to fix`);
    const task = JSON.parse(fs.readFileSync(path.join(dir, '1.json'), 'utf8')) as { blocks: string[] };
    expect(task.blocks).toEqual([]);
  }, 420_000);

  it('notify --on damage tells damage on that list (it warned and sent nothing)', () => {
    const { config, dir } = bigList();
    fs.writeFileSync(path.join(dir, '200001.json'), '{"id":"200001","subj');
    const sent = path.join(config, 'sent.jsonl');
    const r = run(config, ['-l', 'big', 'notify', '--once', '--on', 'damage', '--to', `exec:cat >> '${sent}'`], {
      env: notifyEnv(config),
      timeoutMs: 120_000,
    });
    expect(r.stderr).not.toMatch(/call stack/);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(fs.readFileSync(sent, 'utf8')) as { event: string; text: string };
    expect(doc.event).toBe('damage');
    expect(doc.text).toContain('200001.json does not parse as JSON');
  }, 180_000);
});
