/**
 * Which sessions have the task tools (docs/task-store.md section 12), as the 2.1.328 and
 * 2.1.332 binaries decide it (read from both; the two agree):
 *
 *   taskTools = CLAUDE_CODE_ENABLE_TASKS is not false  && gate
 *   todoWrite = CLAUDE_CODE_ENABLE_TASKS is false      && gate
 *   gate      = a background session || a launch option (--allowedTools or --tools
 *               naming TodoWrite or a Task tool) || no model known || an inference
 *               profile || one of OLDER_MODELS || CLAUDE_CODE_ENABLE_TODO_TOOLS is true
 *
 * where the model is the session's main model in its canonical form, and the variables
 * are read as Claude Code reads booleans ("1", "true", "yes", "on" are true; "0",
 * "false", "no", "off" false; any case, trimmed). Pure.
 */

/** The model families the gate lets through, as the 2.1.332 binary lists them (2.1.328: the same). */
export const OLDER_MODELS: readonly string[] = [
  'claude-3-opus',
  'claude-3-sonnet',
  'claude-3-haiku',
  'claude-3-5-sonnet',
  'claude-3-5-haiku',
  'claude-3-7-sonnet',
  'claude-opus-4-0',
  'claude-opus-4-1',
  'claude-opus-4-5',
  'claude-opus-4-6',
  'claude-opus-4-7',
  'claude-sonnet-4-0',
  'claude-sonnet-4-5',
  'claude-sonnet-4-6',
  'claude-haiku-4-5',
];

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

/** A variable's value as Claude Code reads a boolean: true, false, or undefined (unset or neither). */
export function envBoolean(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  return TRUE.has(v) ? true : FALSE.has(v) ? false : undefined;
}

/**
 * A model id in its canonical form: `claude-opus-4-7` for `claude-opus-4-7-20260101`,
 * `claude-opus-4-7[1m]`, `us.anthropic.claude-opus-4-7-v1:0` or `claude-opus-4-7@20260101`;
 * `claude-opus-4` (dated, with no minor version) is `claude-opus-4-0`. Undefined for an id
 * that names no Claude model family.
 */
export function canonicalModel(id: string): string | undefined {
  const lower = id
    .trim()
    .toLowerCase()
    .replace(/\[[0-9]+m\]$/, '');
  const at = lower.indexOf('claude-');
  if (at === -1) return undefined;
  const name = lower
    .slice(at)
    .replace(/@\d{8}$/, '')
    .replace(/-v\d+(:\d+)?$/, '')
    .replace(/-\d{8}$/, '')
    .replace(/-latest$/, '');
  const current = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d+))?$/.exec(name);
  if (current) return `claude-${current[1]}-${current[2]}-${current[3] ?? '0'}`;
  const old = /^claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)$/.exec(name);
  if (old) return `claude-${old[1]}${old[2] === undefined ? '' : `-${old[2]}`}-${old[3]}`;
  return undefined;
}

export interface GateInput {
  /** The session's model id, as its transcript names it. */
  model?: string | undefined;
  /** CLAUDE_CODE_ENABLE_TODO_TOOLS as the session had it (settings over environment). */
  enableTodoTools?: string | undefined;
  /** CLAUDE_CODE_ENABLE_TASKS as the session had it. */
  enableTasks?: string | undefined;
}

export interface GateVerdict {
  /** Whether the gate lets the tools through; undefined when the model cannot be told (then a launch option or a background session may). */
  open: boolean | undefined;
  /** Which tools the gate opens: the Task tools, or TodoWrite with CLAUDE_CODE_ENABLE_TASKS false. */
  mode: 'tasks' | 'todowrite';
  /** Why, in words: "claude-opus-5-5 is not among the models given the task tools". */
  because: string;
  canonical?: string | undefined;
}

/** The gate for a session, leaving out what a transcript cannot tell (launch options, background sessions). */
export function taskToolsGate(input: GateInput): GateVerdict {
  const mode = envBoolean(input.enableTasks) === false ? 'todowrite' : 'tasks';
  if (envBoolean(input.enableTodoTools) === true) return { open: true, mode, because: 'CLAUDE_CODE_ENABLE_TODO_TOOLS is on' };
  if (input.model === undefined) return { open: undefined, mode, because: 'its model is not known' };
  if (input.model.includes('application-inference-profile')) return { open: true, mode, because: `${input.model} is an inference profile` };
  const canonical = canonicalModel(input.model);
  if (canonical === undefined) return { open: undefined, mode, because: `${input.model} is no model family Claude Code's gate names` };
  if (OLDER_MODELS.includes(canonical))
    return { open: true, mode, because: `${canonical} is among the models given the task tools`, canonical };
  return {
    open: false,
    mode,
    because: `${canonical} is not among the models Claude Code gives the task tools to (since 2.1.233 they are on for older models only, unless CLAUDE_CODE_ENABLE_TODO_TOOLS is on)`,
    canonical,
  };
}
