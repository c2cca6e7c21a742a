import { describe, expect, it } from 'vitest';
import { blockerAnswers, countTasks, indexTasks, taskBlockers } from '../../src/core/graph/blockers.js';
import type { Task } from '../../src/core/store/schema.js';
import { renderCheckReport, renderCheckSummary } from '../../src/render/check-report.js';
import { describeRefusal } from '../../src/render/claim-result.js';
import { renderErrorJson } from '../../src/render/error.js';
import { renderMarkdownChecklist } from '../../src/render/export-markdown.js';
import { renderJson, renderJsonLine } from '../../src/render/json.js';
import { renderLockWait } from '../../src/render/lock-wait.js';
import { PLAIN } from '../../src/render/style.js';
import { renderTaskDetail } from '../../src/render/task-detail.js';
import { renderTaskLines, renderTaskTable } from '../../src/render/task-table.js';
import { renderChangeEvent, renderSnapshotEvent } from '../../src/render/watch-events.js';
import { renderTaskRows } from '../../src/render/watch-rows.js';

// Anything a terminal could act on: C0 (but \t and \n), DEL, C1, bidi controls.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const EVIL = 'a\u001b[2J\u009b31m\u0007\r\u202e\u2028z';

const hostile: Task = {
  id: `7${EVIL}`,
  subject: EVIL,
  description: `${EVIL}\n${EVIL}`,
  activeForm: EVIL,
  owner: EVIL,
  status: 'in_progress',
  blocks: [EVIL],
  blockedBy: [EVIL],
  metadata: { [EVIL]: EVIL },
  [EVIL]: EVIL,
};

describe('renderers never pass control characters through', () => {
  it('JSON: C1 and bidi controls escaped, values unchanged', () => {
    const text = renderJson(hostile);
    expect(text).not.toMatch(UNSAFE);
    expect(JSON.parse(text)).toEqual(hostile);
    const err = renderErrorJson({ code: 'corrupt', message: EVIL, details: { file: EVIL } });
    expect(err).not.toMatch(UNSAFE);
    expect(JSON.parse(err).error.file).toBe(EVIL);
  });

  it('NDJSON lines: watch events and JSON Lines', () => {
    for (const line of [
      renderJsonLine(hostile),
      renderSnapshotEvent(0, EVIL, true, [{ ...hostile, updatedAt: null }]),
      renderChangeEvent(0, { type: 'created', task: hostile }, () => 0),
    ]) {
      expect(line).not.toMatch(UNSAFE);
      expect(line).not.toContain('\n');
    }
    expect(JSON.parse(renderJsonLine(hostile))).toEqual(hostile);
  });

  it('tables, lines and details', () => {
    const index = indexTasks([hostile]);
    const blockers = blockerAnswers([hostile], index);
    for (const out of [
      renderTaskTable([hostile], blockers, { style: PLAIN, width: 120 }),
      renderTaskLines([hostile], blockers),
      renderTaskDetail(hostile, index, taskBlockers(hostile, index), PLAIN),
      renderTaskRows([hostile], blockers, { style: PLAIN, width: 120, now: 0, final: true, recent: new Set() }).join('\n'),
    ]) {
      expect(out.replace(/[\t\n]/g, '')).not.toMatch(UNSAFE);
      expect(out).toContain('a[2J31m');
    }
  });

  it('claim refusals and the Markdown export', () => {
    const index = indexTasks([hostile]);
    expect(describeRefusal('7', { success: false, reason: 'blocked', task: hostile, openBlockers: [EVIL] })).not.toMatch(UNSAFE);
    expect(describeRefusal('7', { success: false, reason: 'agent_busy', task: hostile, busyWith: [EVIL] })).not.toMatch(UNSAFE);
    expect(describeRefusal('7', { success: false, reason: 'already_claimed', task: hostile })).not.toMatch(UNSAFE);
    const list = { index, blockers: blockerAnswers([hostile], index), counts: countTasks([hostile], index) };
    expect(renderMarkdownChecklist([hostile], list, { title: EVIL }).replace(/\n/g, '')).not.toMatch(UNSAFE);
  });

  it('check reports', () => {
    const view = {
      list: EVIL,
      fix: true,
      report: {
        dir: '/x',
        files: 1,
        findings: [
          {
            code: 'bad_file_name' as const,
            severity: 'warning' as const,
            message: EVIL,
            fixable: true,
            hint: EVIL,
            repair: { status: 'failed' as const, message: EVIL },
          },
        ],
        remaining: [],
      },
    };
    expect(renderCheckReport(view, PLAIN).replace(/\n/g, '')).not.toMatch(UNSAFE);
    expect(renderCheckSummary(view, PLAIN)).not.toMatch(UNSAFE);
  });

  it('the lock wait message', () => {
    expect(renderLockWait({ what: 'task #1', lock: '1.json.lock', ageMs: 7200, expiresInMs: 2800, likelyDead: true, aheadMs: 0 })).toBe(
      'waiting for a stale lock left by a dead process (1.json.lock, 7 s old, not refreshed; it expires in 3 s)',
    );
  });
});
