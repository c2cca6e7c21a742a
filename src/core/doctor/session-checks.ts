import { type SettingsPlaces, settingsFilesFor } from '../binding/settings-files.js';
import { clearOf } from '../sessions/cleared-lists.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { cachedTranscriptTasks, memoryCache } from '../sessions/transcript-cache.js';
import { readList } from '../store/list-read.js';
import { listDirOf } from '../store/paths.js';
import { isLeftWork } from '../store/schema.js';
import { type DoctorFinding, type Fix, shellWord, tasksCommand } from './doctor-findings.js';
import { sessionVariable } from './session-env.js';
import { readSessionTools } from './session-tools.js';
import { envBoolean, taskToolsGate } from './tools-gate.js';

/**
 * Why one session's agent had no list, or no longer sees it: the task tools off for its
 * model, TodoWrite instead of the Task tools, or `/clear` having moved it on past its
 * unfinished tasks (docs/task-store.md sections 9, 12 and 15).
 */
export interface SessionCheckContext {
  index: SessionIndex;
  places: SettingsPlaces;
  /** The environment `tasks` runs in: the shell agents are likely started from. */
  env: Readonly<Record<string, string | undefined>>;
}

const ENABLE_TASKS = 'CLAUDE_CODE_ENABLE_TASKS';
const ENABLE_TODO_TOOLS = 'CLAUDE_CODE_ENABLE_TODO_TOOLS';

export function sessionFindings(ctx: SessionCheckContext, session: SessionInfo): DoctorFinding[] {
  return [...unavailableFindings(ctx, session), ...toolFindings(ctx, session), ...strandedFindings(ctx, session)];
}

/**
 * A Task-tool call answered "No such tool available": the clearest sign an agent has no
 * task tools (docs/task-store.md section 12). Its cause, from the settings as they are:
 * CLAUDE_CODE_ENABLE_TASKS off (TodoWrite instead), else the gate for its model. The
 * tools a session has are fixed by its start and by settings it reads meanwhile, so the
 * fix is the setting, then a new session: restarted, or `/clear` in it.
 */
function unavailableFindings(ctx: SessionCheckContext, session: SessionInfo): DoctorFinding[] {
  if (session.transcript === undefined) return [];
  const failed = readSessionTools(session.transcript).unavailable;
  if (failed === undefined) return [];
  const short = session.sessionId.slice(0, 8);
  const when = failed.at === '' ? '' : ` at ${failed.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}`;
  const enableTasks = sessionVariable(session, ENABLE_TASKS, ctx.places);
  const restart =
    session.state === 'live'
      ? ({
          kind: 'command',
          command: '/clear',
          note: `in session ${short} (or restart it): a session gets its tools as it starts`,
        } as const)
      : ({ kind: 'command', command: 'claude', note: 'start a new session: it gets its tools as it starts' } as const);
  const fixes: Fix[] = [];
  let cause: string;
  let file: string | undefined;
  if (envBoolean(enableTasks.value) === false) {
    cause = `${ENABLE_TASKS}=${enableTasks.value} in ${enableTasks.from === 'environment' ? 'its environment' : enableTasks.from} turns the Task tools off (TodoWrite instead)`;
    if (enableTasks.from !== undefined && enableTasks.from !== 'environment') {
      file = enableTasks.from;
      fixes.push({ kind: 'remove-setting', file: enableTasks.from, key: ENABLE_TASKS });
    } else fixes.push({ kind: 'command', command: `unset ${ENABLE_TASKS}`, note: 'in the shell that starts claude' });
  } else {
    const tools = readSessionTools(session.transcript);
    const todoTools = sessionVariable(session, ENABLE_TODO_TOOLS, ctx.places);
    const gate = taskToolsGate({ model: tools.model, enableTodoTools: todoTools.value, enableTasks: enableTasks.value });
    cause = gate.open === false ? gate.because : 'its settings or launch options did not give it the Task tools';
    const local = session.cwd === undefined ? undefined : settingsFilesFor(session.cwd, ctx.places).find((f) => f.scope === 'local')?.file;
    if (local !== undefined) {
      file = local;
      fixes.push({
        kind: 'settings',
        file: local,
        snippet: { env: { [ENABLE_TODO_TOOLS]: '1' } },
        note: 'for every session started there',
      });
    }
  }
  fixes.push(restart);
  return [
    {
      code: 'task_tools_unavailable',
      message: `session ${short} has no task tools: its ${failed.tool} call${when} was answered "No such tool available: ${failed.tool}"; ${cause}`,
      session: session.sessionId,
      file,
      fixes,
    },
  ];
}

function toolFindings(ctx: SessionCheckContext, session: SessionInfo): DoctorFinding[] {
  if (session.transcript === undefined) return [];
  const tools = readSessionTools(session.transcript);
  if (tools.calledTasks) return [];
  const id = session.sessionId;
  const short = id.slice(0, 8);
  const local = session.cwd === undefined ? undefined : settingsFilesFor(session.cwd, ctx.places).find((f) => f.scope === 'local')?.file;
  const had = tools.deferredTools;
  const todoMode = tools.calledTodoWrite || (had?.has('TodoWrite') === true && !had.has('TaskCreate'));
  const enableTasks = sessionVariable(session, ENABLE_TASKS, ctx.places);
  if (todoMode) {
    const fixes: Fix[] = [];
    if (enableTasks.from !== undefined && enableTasks.from !== 'environment') {
      fixes.push({ kind: 'remove-setting', file: enableTasks.from, key: ENABLE_TASKS, note: 'then start a new session' });
    } else {
      fixes.push({ kind: 'command', command: `unset ${ENABLE_TASKS}`, note: 'in the shell that starts claude, then start a new session' });
    }
    const todos = cachedTranscriptTasks(session.transcript, memoryCache()).todos;
    if (todos !== undefined && todos.length > 0) {
      fixes.push({
        kind: 'command',
        command: tasksCommand(id, 'import', shellWord(session.transcript)),
        note: `makes a list of its ${todos.length} todo${todos.length === 1 ? '' : 's'}`,
      });
    }
    const where =
      enableTasks.from === undefined
        ? envBoolean(ctx.env[ENABLE_TASKS]) === false
          ? `; ${ENABLE_TASKS}=${ctx.env[ENABLE_TASKS]} is set in this shell too`
          : ''
        : ` (${ENABLE_TASKS}=${enableTasks.value} in ${enableTasks.from === 'environment' ? 'its environment' : enableTasks.from})`;
    return [
      {
        code: 'todowrite_mode',
        message: `session ${short} keeps TodoWrite todos, not a task list${where}: its todos live only in its transcript, and no list is written for tasks or other agents to see`,
        session: id,
        file: enableTasks.from === 'environment' ? undefined : enableTasks.from,
        fixes,
      },
    ];
  }
  if (had?.has('TaskCreate')) return [];
  const todoTools = sessionVariable(session, ENABLE_TODO_TOOLS, ctx.places);
  const gate = taskToolsGate({ model: tools.model, enableTodoTools: todoTools.value, enableTasks: enableTasks.value });
  // With the tools announced, the transcript says they were off; without, the model's rule.
  const certain = had !== undefined;
  if (!certain && gate.open !== false) return [];
  // Settings turn them on now: sessions started from now on have them; a running one keeps what it started with.
  const fixedSince = envBoolean(todoTools.value) === true && todoTools.from !== 'environment';
  if (fixedSince && session.state !== 'live') return [];
  const evidence = certain
    ? 'its transcript shows it had neither the Task tools nor TodoWrite'
    : 'it called none of them (a launch option, --allowedTools naming them, would have turned them on)';
  const fixes: Fix[] = [];
  if (fixedSince) {
    fixes.push({
      kind: 'command',
      command: '/exit',
      note: `in session ${short}, then start claude again: ${todoTools.from} turns the tools on, and settings are read at start`,
    });
  } else if (local !== undefined) {
    fixes.push({
      kind: 'settings',
      file: local,
      snippet: { env: { [ENABLE_TODO_TOOLS]: '1' } },
      note: 'for every new session started there',
    });
  }
  fixes.push({ kind: 'command', command: `${ENABLE_TODO_TOOLS}=1 claude`, note: 'one session' });
  return [
    {
      code: 'task_tools_off',
      message: `session ${short} had no task tools: ${gate.because}; ${evidence}`,
      session: id,
      fixes,
    },
  ];
}

/** A session `/clear` moved on: its list's unfinished tasks are out of its agent's sight. */
function strandedFindings(ctx: SessionCheckContext, session: SessionInfo): DoctorFinding[] {
  const clear = clearOf(session);
  if (clear === undefined) return [];
  const list = ctx.index.listsOfSession(session.sessionId)[0];
  if (list === undefined) return [];
  const unfinished = readList(listDirOf(ctx.index.configDir, list)).tasks.filter(isLeftWork);
  if (unfinished.length === 0) return [];
  const now = clear.newSessionId;
  const n = unfinished.length;
  const left = `the ${n} unfinished task${n === 1 ? '' : 's'} of list ${list.slice(0, 8)} ${n === 1 ? 'is' : 'are'}`;
  return [
    {
      code: 'list_stranded',
      message: `${clear.sure ? '' : 'probably (by times alone) '}/clear moved session ${session.sessionId.slice(0, 8)} on to ${now.slice(0, 8)}: ${left} no longer shown to its agent`,
      session: session.sessionId,
      list,
      fixes: [
        { kind: 'command', command: `tasks --session ${now} carry --from ${list}`, note: 'brings them into the list the agent uses now' },
      ],
    },
  ];
}
