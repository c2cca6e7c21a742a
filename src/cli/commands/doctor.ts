import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { isDirectory } from '../../core/base/is-directory.js';
import { diagnose } from '../../core/doctor/diagnose.js';
import { chooseList, requireConfigDir, sessionListsByPrefix } from '../../core/lists/list-choice.js';
import { listDirOf, sanitizeListId } from '../../core/store/paths.js';
import { renderDoctorReport, renderDoctorSummary } from '../../render/doctor-report.js';
import { renderJson } from '../../render/json.js';
import { tildePath } from '../../render/session-text.js';
import type { Context } from '../runtime/context.js';
import { EXIT } from '../runtime/exit-codes.js';

export function registerDoctor(program: Command, ctx: Context): void {
  program
    .command('doctor')
    .description('why agents do not see or keep a list, each cause with the exact fix (this project, --session, or -l)')
    .addHelpText(
      'after',
      `
Looks at this project (the Claude Code sessions of the current directory, or of its
nearest parent that has any: the live ones and the latest five), one session
(--session <id>), or one list (-l <list>), and names each cause with its fix, a command
to run or the settings to put in a file:

  task_tools_off            the session's model is one Claude Code gives the task tools
                            only with CLAUDE_CODE_ENABLE_TODO_TOOLS on (since 2.1.233)
  todowrite_mode            CLAUDE_CODE_ENABLE_TASKS=0: TodoWrite todos, no list
  list_variable_overridden  CLAUDE_CODE_TASK_LIST_ID set for tasks, but settings give the
                            agents here another list
  list_variable_not_shared  CLAUDE_CODE_TASK_LIST_ID set for tasks, not for the agents
  agents_list_not_chosen    the agents here worked on a list named in their environment,
                            which tasks here does not use
  binding_shadowed          a settings file binds a list another file overrides
  hooks_untrusted           project task hooks skipped: the folder is not trusted
  list_stranded             /clear moved an agent on past its unfinished tasks
  tasks_missing             tasks the transcripts show are gone (a reset, a removed folder)
  tasks_unreadable, lock_problem, ids_past_limit, highwatermark_problem
                            the list's files (tasks check --fix)

Exit 0 when nothing is found, 4 with findings. Reads only: it changes nothing.

Examples:
  tasks doctor
  tasks doctor --session 2d483082
  tasks doctor -l refactor --json | jq -r '.findings[].fixes[0].command // empty'`,
    )
    .action(async () => {
      const globals = ctx.globals();
      requireConfigDir(ctx.configDir);
      if (globals.list !== undefined && globals.session !== undefined) {
        throw new TasksError('usage', 'give -l or --session, not both');
      }
      const scope =
        globals.session !== undefined
          ? sessionScope(ctx, globals.session)
          : globals.list !== undefined
            ? listScope(ctx, globals.list)
            : { kind: 'project' as const };
      const report = await diagnose({
        index: ctx.sessions,
        places: { ...ctx.settingsPlaces, configDir: ctx.configDir },
        trust: ctx.hookPolicy,
        env: ctx.env,
        cwd: ctx.cwd,
        home: ctx.home,
        scope,
        chosenList: scope.kind === 'project' ? listHere(ctx) : undefined,
        shortId: (id) => ctx.shortId(id),
        now: ctx.now(),
      });
      if (ctx.io.json) ctx.io.out(renderJson(report));
      else {
        const body = renderDoctorReport(report, ctx.io.style);
        if (body !== '') ctx.io.out(body);
      }
      const where =
        report.scope.kind === 'session'
          ? `session ${ctx.shortId(report.scope.session ?? '')}`
          : report.scope.kind === 'list'
            ? `list ${ctx.shortId(report.scope.list ?? '')}`
            : `project ${report.scope.dir === undefined ? '(no directory)' : tildePath(report.scope.dir, ctx.home)}`;
      ctx.io.note(renderDoctorSummary(report, where), 'doctor_summary', { findings: report.findings.length });
      if (report.findings.length > 0) ctx.io.setExit(EXIT.conflict);
    });
}

function sessionScope(ctx: Context, raw: string) {
  const typed = raw.trim().toLowerCase();
  if (typed === '') throw new TasksError('usage', 'the session id is empty');
  const matches = ctx.sessions.sessionsByPrefix(typed);
  if (matches.length > 1 && !matches.includes(typed)) {
    throw new TasksError('usage', `session prefix "${raw}" is ambiguous: ${matches.slice(0, 5).join(', ')}`, {
      hint: 'type more of the session id',
      details: { candidates: matches },
    });
  }
  const id = matches.includes(typed) ? typed : matches[0];
  const session = id === undefined ? undefined : ctx.sessions.session(id);
  if (session === undefined) {
    throw new TasksError('not_found', `no session "${raw}" under ${ctx.configDir}`, { hint: 'tasks lists --all shows the sessions' });
  }
  return { kind: 'session' as const, session };
}

/** A list by its exact name, else the one session UUID list it is a prefix of; a list that is gone is still diagnosed. */
function listScope(ctx: Context, raw: string) {
  if (raw.trim() === '') throw new TasksError('usage', 'the list id is empty');
  const id = sanitizeListId(raw.trim());
  if (!isDirectory(listDirOf(ctx.configDir, id))) {
    const matches = sessionListsByPrefix(ctx.configDir, raw);
    if (matches.length > 1)
      throw new TasksError('usage', `list prefix "${raw}" is ambiguous: ${matches.join(', ')}`, { details: { candidates: matches } });
    if (matches.length === 1) return { kind: 'list' as const, list: matches[0] as string };
  }
  return { kind: 'list' as const, list: id };
}

/** The list tasks uses here, as a read chooses it; undefined when there is none. */
function listHere(ctx: Context): string | undefined {
  try {
    return chooseList(ctx.configDir, {
      env: ctx.env.CLAUDE_CODE_TASK_LIST_ID,
      forWrite: false,
      cwd: ctx.cwd,
      home: ctx.home,
      settings: ctx.settingsPlaces,
      index: ctx.sessions,
    }).id;
  } catch {
    return undefined;
  }
}
