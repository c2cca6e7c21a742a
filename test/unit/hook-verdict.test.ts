import { describe, expect, it } from 'vitest';
import type { HookProcessResult } from '../../src/core/hooks/hook-process.js';
import { judgeHookRun } from '../../src/core/hooks/hook-verdict.js';

function run(partial: Partial<HookProcessResult>): HookProcessResult {
  return { code: 0, signal: null, stdout: '', stderr: '', timedOut: false, interrupted: false, ...partial };
}

describe('judgeHookRun (Claude Code 2.1.328 rules)', () => {
  it('exit 0 allows; plain stdout is not a decision', () => {
    expect(judgeHookRun('TaskCompleted', run({ stdout: 'all good\n' }), 60)).toEqual({ kind: 'allow' });
    expect(judgeHookRun('TaskCompleted', run({ stdout: '{"decision":"approve"}' }), 60)).toEqual({ kind: 'allow' });
    expect(judgeHookRun('TaskCompleted', run({ stdout: '{not json' }), 60)).toEqual({ kind: 'allow' });
  });

  it('exit 0 with {"decision":"block"} blocks, with its reason or "Blocked by hook"', () => {
    expect(judgeHookRun('TaskCreated', run({ stdout: ' {"decision":"block","reason":"use a verb"}\n' }), 60)).toEqual({
      kind: 'block',
      reason: 'use a verb',
    });
    expect(judgeHookRun('TaskCreated', run({ stdout: '{"decision":"block"}' }), 60)).toEqual({ kind: 'block', reason: 'Blocked by hook' });
  });

  it('exit 2 blocks with stderr as the reason, stdout ignored', () => {
    expect(judgeHookRun('TaskCompleted', run({ code: 2, stderr: 'tests fail\n', stdout: '{"decision":"approve"}' }), 60)).toEqual({
      kind: 'block',
      reason: 'tests fail',
    });
    expect(judgeHookRun('TaskCompleted', run({ code: 2 }), 60)).toEqual({ kind: 'block', reason: 'No stderr output' });
  });

  it('exit 2 from a missing script is not a block for TaskCompleted, but is for TaskCreated', () => {
    const missing = run({ code: 2, stderr: 'sh: 0: cannot open gate.sh: No such file\n' });
    expect(judgeHookRun('TaskCompleted', missing, 60).kind).toBe('error');
    expect(judgeHookRun('TaskCreated', missing, 60).kind).toBe('block');
    // With something on stdout it is a real block again.
    expect(judgeHookRun('TaskCompleted', { ...missing, stdout: 'x' }, 60).kind).toBe('block');
  });

  it('other exits, signals and spawn failures are non-blocking errors', () => {
    expect(judgeHookRun('TaskCompleted', run({ code: 1, stderr: 'boom\nmore' }), 60)).toEqual({ kind: 'error', message: 'exited 1: boom' });
    expect(judgeHookRun('TaskCompleted', run({ code: 126, stderr: 'Permission denied' }), 60).kind).toBe('error');
    expect(judgeHookRun('TaskCompleted', run({ code: null, signal: 'SIGKILL' }), 60)).toEqual({
      kind: 'error',
      message: 'ended by SIGKILL',
    });
    expect(judgeHookRun('TaskCompleted', run({ code: null, spawnError: 'ENOENT' }), 60).kind).toBe('error');
  });

  it('a timeout is not a block; an interrupt wins over everything', () => {
    expect(judgeHookRun('TaskCompleted', run({ code: null, signal: 'SIGTERM', timedOut: true }), 5)).toEqual({
      kind: 'timeout',
      seconds: 5,
    });
    expect(judgeHookRun('TaskCompleted', run({ code: 2, timedOut: true, interrupted: true }), 5)).toEqual({ kind: 'interrupted' });
  });
});
