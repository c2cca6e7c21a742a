import type { Command } from 'commander';
import { parseUntil, UNTIL_FORMS } from '../../core/watch/watch-condition.js';
import { parseDuration } from '../flags/duration-flags.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { type Context, usage } from '../runtime/context.js';
import { takingRepeatedSignals } from '../runtime/repeat-signals.js';
import { runAgentWatch } from '../watch/agent-run-watch.js';

interface RunOptions extends FilterOptions {
  until?: string;
  timeout?: string;
  failIfStalled?: string;
  record?: string;
  killAfter?: string;
}

const HELP = `
Runs the agent's command (after --) in a process group of its own, reads its stdout as
watch --stream reads a run (the same events, the same judgement: --until at the run's
result event, on the list as it is then), and ends the run when the verdict is known:

  the run's result      the agent is waited for (30s at most, then ended); exit 0 when
                        --until held then, 6 when it did not
  --fail-if-stalled D   nothing from the agent for D, no tool call of its in flight (a
                        long command is work; another agent's task changes on a
                        shared list are not its): the agent's group gets SIGTERM,
                        SIGKILL after --kill-after; exit 7
  --timeout D           the same when D passes first; exit 124 (with or without --until)
  Ctrl-C, SIGTERM       the same; exit 130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP);
                        a second signal kills the group at once (the verdict
                        and last line still said; a third ends tasks run at once)
  the agent exits first its output ended without a result: exit 6 when work is left
                        unfinished (or --until was not met); the tasks in progress it
                        took up are named as a dead agent's (note session_died, with the
                        release command; "died" in the end event, with "exit": killed by
                        a signal, or its status; the live view marks them "agent gone")

The agent's own word counts: a run whose result event is an error (is_error:
error_max_turns, an API error...), or whose agent exits non-zero by itself, never passes,
even when --until held: tasks run exits with the agent's status (1 when it exited 0),
verdict agent-failed, and says why on stderr.

Without --until, the status is the agent's own (0 when it exited 0), or 6 as above. An
agent that fails having made no task leaves nothing to judge: tasks run exits with the
agent's own status and says so. A command that cannot be found exits 127, one that
cannot be run 126, as a shell would; an output that is not stream-json is said at its
first line, and with nothing to judge at the end is a usage error (2).

Whatever ends the run, no process of the agent's group is left running: what the agent
leaves behind when it exits is ended too. Should tasks run itself be killed (SIGKILL), a
guard in the agent's group notices and ends the group. (A process that starts a session
of its own, as a daemon does, has left the group.)

The agent gets tasks run's stdin and environment, with CLAUDE_CODE_TASK_LIST_ID set to
--list (a session list named by a short id: its whole id) and CLAUDE_CONFIG_DIR to
--config-dir when given. Its stderr is passed through
(with --json, each line is a note "agent_stderr"; in the live view, it is printed when
the view closes). --record FILE keeps its stdout, byte for byte (the stream-json run).

Output: as tasks watch (the live view in a terminal; NDJSON events piped or with --json),
then, in NDJSON, a last line (a reader that goes away, as | head -1 does, ends only the
events: the run goes on to its verdict, which is the status):
  {"event":"run","verdict":"passed|run-ended|stalled|timeout|interrupted|agent-failed|…",
   "exit":0,"list":"…","session":"…","agent":{"command":"claude","pid":…,"exitCode":0,
   "signal":null,"endedBy":"itself|SIGTERM|SIGKILL"},"result":{"subtype":"success",
   "isError":false},"record":"run.jsonl"}

In a terminal (stdout and stderr), until the agent's first output a line says what the run
waits for and for how long ("waiting for claude (pid 4242) to say its session… 5s"); a list
named that is still not there after 5s is said there and in the live view, with the near
name meant ("did you mean build-99?"), and waited for.

Examples:
  tasks run --until all-completed --timeout 30m --fail-if-stalled 10m --record run.jsonl -- \\
    claude -p "fix the flaky tests" --output-format stream-json --verbose
  tasks -l ci-123 run --until all-completed -- claude -p "$PROMPT" --output-format stream-json --verbose`;

export function registerRun(program: Command, ctx: Context): void {
  const command = program
    .command('run')
    .usage('[options] -- <command...>')
    .description("run an agent's command and judge its run as watch --stream does; end it when the verdict is known")
    .argument('<command...>', 'the agent: claude -p ... --output-format stream-json --verbose')
    .allowUnknownOption();
  addFilterOptions(command, ['status', 'owner', 'unowned', 'ready', 'blocked', 'all'])
    .option('-u, --until <condition>', `the gate, judged at the run's result: ${UNTIL_FORMS.join(', ')}`)
    .option('-t, --timeout <duration>', 'end the agent and exit 124 when this passes first (durations: see tasks --help)')
    .option(
      '--fail-if-stalled <duration>',
      'end the agent and exit 7 when its output is silent this long (a tool call in flight is not silence)',
    )
    .option('--kill-after <duration>', 'after SIGTERM, how long the agent gets before SIGKILL (default 10s)')
    .option('--record <file>', "copy the agent's stdout (its stream-json run) to this file")
    .addHelpText('after', HELP)
    .action(async (words: string[], opts: RunOptions) => {
      const [agentCommand, ...args] = words;
      // An option given no value takes the -- as its own (`--record -- claude ...`): a record
      // named "--", or an agent writing to a list named "--" (`-l --`), or with a config folder
      // named "--" (`--config-dir --`), where it would start without its login.
      const globals = ctx.globals();
      for (const [flag, value, what] of [
        ['--record', opts.record, 'file'],
        ['--owner', opts.owner, 'name'],
        ['--list', globals.list, 'list'],
        ['--config-dir', globals.configDir, 'folder'],
      ] as const) {
        if (value !== '--') continue;
        const typed = ctx.args[ctx.args.indexOf('--') - 1];
        throw usage(`${typed?.startsWith('-') ? typed : flag} needs a ${what}: it took the -- before the agent's command`);
      }
      // Words before the -- are not the agent's: tasks run's own options among them
      // (`tasks run claude --until all-completed -- ...`) would be taken, and the -- given to the agent.
      // Counted, not only the first compared: `tasks run sh -- sh -c ...` would run `sh sh -c ...`.
      const dash = ctx.args.indexOf('--');
      const example = 'tasks run --until all-completed -- claude -p "..." --output-format stream-json --verbose';
      if (dash === -1 || words.length !== ctx.args.length - dash - 1) {
        // An option of tasks run's mistyped (--untill) is one commander let through with the agent's words.
        const typo = dash === -1 ? undefined : words.slice(0, words.length - (ctx.args.length - dash - 1)).find((w) => /^-./.test(w));
        if (typo !== undefined)
          throw usage(`unknown option '${typo}' (tasks run's own options go before the --, the agent's after it)`, example);
        throw usage("put the agent's command after --", example);
      }
      // `tasks run -- -- claude ...` would start a program named "--" (exit 127).
      if (agentCommand === '--') throw usage("-- given twice: put the agent's command after one --", example);
      if (globals.session !== undefined) throw usage('--session and run cannot be used together: the run names its own session');
      if (agentCommand === undefined || agentCommand === '') throw usage('tasks run needs a command after --');
      const cwd = ctx.cwd;
      if (cwd === undefined) throw usage('tasks run: the current directory no longer exists');
      const filter = filterFrom(opts, ctx);
      const until = opts.until === undefined ? undefined : parseUntil(opts.until);
      const timeoutMs = opts.timeout === undefined ? undefined : parseDuration('--timeout', opts.timeout);
      // Unlike a watch's (one look, then its verdict), a run's deadline of nothing would end the agent as it starts.
      if (timeoutMs !== undefined && timeoutMs <= 0) throw usage('--timeout must be longer than 0');
      const stallMs = opts.failIfStalled === undefined ? undefined : parseDuration('--fail-if-stalled', opts.failIfStalled);
      if (stallMs !== undefined && stallMs <= 0) throw usage('--fail-if-stalled must be longer than 0');
      const killAfterMs = opts.killAfter === undefined ? 10_000 : parseDuration('--kill-after', opts.killAfter);
      // A second Ctrl-C kills the agent's group at once; the run still says its verdict and last line.
      await takingRepeatedSignals(() =>
        runAgentWatch(ctx, {
          command: agentCommand,
          args,
          cwd,
          filter,
          until,
          timeoutMs,
          stallMs,
          killAfterMs,
          record: opts.record,
        }),
      );
    });
}
