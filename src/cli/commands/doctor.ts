import type { Command } from 'commander';
import { diagnose } from '../../core/doctor/diagnose.js';
import { doctorScope, listUsedHere } from '../../core/doctor/doctor-scope.js';
import { requireConfigDir } from '../../core/lists/list-choice.js';
import { renderDoctorReport, renderDoctorSummary, renderNetworkListNote } from '../../render/doctor-report.js';
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
  task_tools_unavailable    a Task-tool call was answered "No such tool available": the
                            setting that turned the tools off, then /clear or a restart
  todowrite_mode            CLAUDE_CODE_ENABLE_TASKS=0: TodoWrite todos, no list
  list_variable_overridden  CLAUDE_CODE_TASK_LIST_ID set for tasks, but settings give the
                            agents here another list
  list_variable_unknown     CLAUDE_CODE_TASK_LIST_ID names no list, while the agents here
                            used another (a typo): that one
  list_variable_not_shared  CLAUDE_CODE_TASK_LIST_ID set for tasks, not for the agents
  agents_list_not_chosen    the agents here worked on a list named in their environment,
                            which tasks here does not use
  binding_shadowed          a settings file binds a list another file overrides
  hooks_untrusted           project task hooks skipped: the folder is not trusted
  list_stranded             /clear moved an agent on past its unfinished tasks
  tasks_missing             tasks the transcripts show are gone (a reset, a removed folder)
  tasks_unreadable, lock_problem, ids_past_limit, highwatermark_problem
                            the list's files (tasks check --fix)

A list on a network filesystem (NFS, SMB, 9p, sshfs...) is said in a note: agents on
several machines may share it if their clocks agree. With -H, a host whose clock is more
than 5 s off this machine's is said in a warning.

Exit 0 when nothing is found, 4 with findings. Reads only: it changes nothing.

Examples:
  tasks doctor
  tasks doctor --session 2d483082
  tasks doctor -l refactor --json | jq -r '.findings[].fixes[0].command // empty'`,
    )
    .action(async () => {
      const globals = ctx.globals();
      requireConfigDir(ctx.configDir);
      const scope = doctorScope(ctx.sessions, ctx.configDir, { session: globals.session, list: globals.list });
      const report = await diagnose({
        index: ctx.sessions,
        places: { ...ctx.settingsPlaces, configDir: ctx.configDir },
        trust: ctx.hookPolicy,
        env: ctx.env,
        cwd: ctx.cwd,
        home: ctx.home,
        scope,
        chosenList:
          scope.kind === 'project'
            ? listUsedHere(ctx.configDir, {
                env: ctx.env.CLAUDE_CODE_TASK_LIST_ID,
                cwd: ctx.cwd,
                home: ctx.home,
                settings: ctx.settingsPlaces,
                index: ctx.sessions,
              })
            : undefined,
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
      for (const n of report.networkLists)
        ctx.io.note(renderNetworkListNote(ctx.shortId(n.list), n.filesystem), 'list_on_network_fs', {
          list: n.list,
          filesystem: n.filesystem,
        });
      ctx.io.note(renderDoctorSummary(report, where), 'doctor_summary', { findings: report.findings.length });
      if (report.findings.length > 0) ctx.io.setExit(EXIT.conflict);
    });
}
