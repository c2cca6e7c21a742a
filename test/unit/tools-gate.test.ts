import { describe, expect, it } from 'vitest';
import { canonicalModel, envBoolean, OLDER_MODELS, taskToolsGate } from '../../src/core/doctor/tools-gate.js';

describe("the task tools' gate, as the 2.1.332 binary has it", () => {
  it('names model ids by their family', () => {
    expect(canonicalModel('claude-opus-5-5')).toBe('claude-opus-5-5');
    expect(canonicalModel('claude-opus-4-7-20260101')).toBe('claude-opus-4-7');
    expect(canonicalModel('claude-opus-4-7[1m]')).toBe('claude-opus-4-7');
    expect(canonicalModel('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5');
    expect(canonicalModel('claude-sonnet-4-5@20250929')).toBe('claude-sonnet-4-5');
    expect(canonicalModel('claude-opus-4-20250514')).toBe('claude-opus-4-0');
    expect(canonicalModel('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet');
    expect(canonicalModel('claude-3-opus-20240229')).toBe('claude-3-opus');
    expect(canonicalModel('gpt-4o')).toBeUndefined();
    expect(canonicalModel('claude-mock')).toBeUndefined();
  });

  it('reads booleans as Claude Code does', () => {
    for (const v of ['1', 'true', 'YES', ' on ']) expect(envBoolean(v)).toBe(true);
    for (const v of ['0', 'false', 'No', 'off']) expect(envBoolean(v)).toBe(false);
    for (const v of [undefined, '', 'maybe', '2']) expect(envBoolean(v)).toBeUndefined();
  });

  it('opens for the older models, an inference profile and the variable; closes for the newer; cannot tell for an unknown model', () => {
    expect(OLDER_MODELS).toContain('claude-opus-4-7');
    expect(taskToolsGate({ model: 'claude-opus-4-7-20260101' }).open).toBe(true);
    expect(taskToolsGate({ model: 'claude-haiku-4-5' }).open).toBe(true);
    expect(taskToolsGate({ model: 'arn:aws:bedrock:us-east-1:1:application-inference-profile/x' }).open).toBe(true);
    expect(taskToolsGate({ model: 'claude-opus-5-5' })).toMatchObject({ open: false, mode: 'tasks', canonical: 'claude-opus-5-5' });
    expect(taskToolsGate({ model: 'claude-haiku-4-6' }).open).toBe(false);
    expect(taskToolsGate({ model: 'claude-opus-5-5', enableTodoTools: 'true' }).open).toBe(true);
    expect(taskToolsGate({ model: 'claude-opus-5-5', enableTodoTools: '0' }).open).toBe(false);
    expect(taskToolsGate({ model: 'claude-opus-4-7', enableTasks: '0' })).toMatchObject({ open: true, mode: 'todowrite' });
    expect(taskToolsGate({ model: 'my-proxy-model' }).open).toBeUndefined();
    expect(taskToolsGate({}).open).toBeUndefined();
  });
});
