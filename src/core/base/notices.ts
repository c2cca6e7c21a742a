/**
 * Every code a warning or a note can carry, with when it is said and the facts that come
 * with it under `--json` (`{"warning"|"note": {code, message, ...facts}}` on stderr). This
 * is the one list: the CLI's `note()` and `warn()` take only a code named here (the type
 * checker holds every call to it), and `npm run docs` writes docs/reference/codes.md from
 * it. A new warning or note is a new row.
 */
interface NoticeInfo {
  readonly kind: 'note' | 'warning';
  /** When it is said, in a few words. */
  readonly when: string;
  /** The facts beside `code` and `message` under `--json`, when there are any. */
  readonly facts?: readonly string[];
}

export const NOTICES = {
  // Which list
  list_chosen: { kind: 'note', when: 'the list was not named: which one a command used, and why', facts: ['list', 'how'] },
  list_created: {
    kind: 'note',
    when: 'a new list was made (by `create` or `import`, whose `--json` output says so itself; a dry run says it would be)',
    facts: ['list'],
  },
  list_not_made_yet: {
    kind: 'note',
    when: 'the list bound to this project, or named and moved to by `tasks use`, has no folder yet: reads show it empty',
    facts: ['list'],
  },
  waiting_for_list: { kind: 'note', when: '`watch` on a list that does not exist yet: a close name, and that it waits', facts: ['list'] },
  dry_run_needs_list: { kind: 'note', when: 'a dry run where a real run would need its list named: what it needs' },
  list_choice_warning: {
    kind: 'warning',
    when: 'the list choice went on past a problem (a settings file skipped, settings naming another list)',
  },
  folder_skipped: { kind: 'warning', when: '`lists`: a folder under `tasks/` that no list id can name' },
  list_unusable: {
    kind: 'warning',
    when: '`lists`: an entry under `tasks/` no list can be read from: a symbolic link to nothing, a link loop, a file',
    facts: ['path'],
  },
  list_unreadable_files: {
    kind: 'warning',
    when: "`lists` piped: a list with task files (or a folder) that cannot be read or are not valid tasks, left out of its counts (a terminal's `(2 unreadable)`, `--json`'s `problems`)",
    facts: ['list', 'problems'],
  },
  team_config_skipped: { kind: 'warning', when: '`lists`: a team config that cannot be read', facts: ['file'] },
  sessions_elsewhere: {
    kind: 'note',
    when: '`lists --all`: sessions that wrote into a list named only in their environment, its folder gone, with the `restore` that reads them',
    facts: ['sessions'],
  },
  list_aliases: {
    kind: 'note',
    when: '`lists`: a list folder also reached under other names (symlinks under `tasks/`), shown once',
    facts: ['list', 'aliases'],
  },
  sessions_unsure: { kind: 'note', when: '`lists`: sessions the transcripts cannot tie to one list of several made from one plan' },
  todowrite_hidden: { kind: 'note', when: '`lists`: older TodoWrite sessions left out (`--all` shows them)', facts: ['hidden'] },
  no_lists: { kind: 'note', when: 'no task list at all (or none that matches `--here` / `--live`)' },
  no_tasks: { kind: 'note', when: '`graph` of a list with no tasks' },
  no_tasks_yet: { kind: 'note', when: '`check` of a list that has no folder yet: nothing to check' },
  // Reading a list
  summary: { kind: 'note', when: '`list`, `check`: the counts line, on stderr when piped' },
  file_skipped: { kind: 'warning', when: 'a file in the list folder is not a valid task: left out', facts: ['file', 'reason'] },
  cache_untrusted: {
    kind: 'warning',
    when: 'the cache folder belongs to another user or others can write it: not used (the run keeps what it works out in memory)',
    facts: ['dir'],
  },
  unknown_owner: { kind: 'warning', when: 'an owner filter names no owner of the list and no team member (a typo?)', facts: ['owner'] },
  owner_gone: { kind: 'warning', when: '`list` piped: owners whose sessions are over, with no sign of life left', facts: ['tasks'] },
  agent_gone: {
    kind: 'warning',
    when: '`list` piped (one a task), `lists --stalled` (one a list, its `ids`): a task in progress with no owner whose session ended or crashed holding it (`release --gone` puts it back)',
    facts: ['id', 'ids', 'session', 'why'],
  },
  stalled: {
    kind: 'warning',
    when: '`list` piped: a task in progress, unchanged for the stall time while no session is busy',
    facts: ['id', 'idleMs'],
  },
  waiting_for_person: {
    kind: 'note',
    when: '`list` piped, `list --stalled`, `lists --stalled`, `watch` (as a session begins to wait): tasks in progress whose session waits for a person (a permission prompt): waiting, not stalled',
    facts: ['ids', 'session', 'waitingFor'],
  },
  missing_blocker: { kind: 'warning', when: '`list` piped: a blocker that names a task that does not exist' },
  cycle: { kind: 'warning', when: '`graph`: a dependency cycle agents made', facts: ['cycle'] },
  // Changes
  still_blocked: { kind: 'warning', when: 'a task started or completed while blockers are still open', facts: ['id', 'openBlockers'] },
  not_blocking: { kind: 'warning', when: '`unblock --by` a task that does not block it', facts: ['id', 'by'] },
  verification_missing: {
    kind: 'note',
    when: 'every task of three or more is completed and none is a verification step (Claude Code nudges its agents the same way)',
  },
  lock_wait: {
    kind: 'note',
    when: 'waiting out a lock left by a dead process',
    facts: ['lock', 'ageMs', 'expiresInMs', 'likelyDead'],
  },
  passed_over: { kind: 'warning', when: '`claim --next`: a ready task whose lock could not be had, passed over', facts: ['id'] },
  too_new: { kind: 'note', when: '`claim --next --min-age`: ready tasks created too recently, passed over', facts: ['ids', 'minAgeMs'] },
  nothing_held: { kind: 'note', when: '`release --owner`: the agent holds no unfinished task', facts: ['owner'] },
  none_gone: { kind: 'note', when: '`release --gone`: no owner is gone (and, when one remains, which sign of life)', facts: ['alive'] },
  live_in_project: {
    kind: 'note',
    when: "`release --gone --dry-run` while a session is live where the list's sessions ran: a real run needs `--force`",
  },
  // Hooks and teams
  hooks_skipped: {
    kind: 'warning',
    when: 'project hooks skipped: the folder is not trusted, or managed settings allow only theirs',
    facts: ['reason', 'files', 'folder', 'configFile', 'managedFile'],
  },
  settings_skipped: { kind: 'warning', when: 'a settings file or hook entry that cannot be used, skipped' },
  hook_failed: { kind: 'warning', when: 'a hook failed or timed out (not a block: the change goes on)', facts: ['event', 'taskId'] },
  hooks_not_run: { kind: 'note', when: '`--no-hooks`: the hooks that were skipped', facts: ['event', 'taskId', 'hooks'] },
  hook_block_detail: {
    kind: 'note',
    when: 'a hook blocked a change: the rest of its reason, line by line (not with `--json`, whose error holds it)',
  },
  owner_told: { kind: 'note', when: "a team member's inbox was told of the task assigned", facts: ['owner', 'taskId', 'team'] },
  owner_not_told: { kind: 'note', when: '`--no-notify`: the new owner was not told', facts: ['owner', 'taskId'] },
  inbox_not_written: { kind: 'warning', when: "the new owner's inbox could not be written (the owner change stands)", facts: ['owner'] },
  trusted: { kind: 'note', when: '`trust`: the folder trusted, or trusted already' },
  // use
  binding: { kind: 'note', when: '`use` with no list: the binding and the file that sets it' },
  bound: { kind: 'note', when: '`use <list>`: the project bound' },
  unbound: { kind: 'note', when: '`use --clear`: the binding removed' },
  sessions_moved: { kind: 'note', when: '`use`: running sessions that move to the new list at their next task call', facts: ['sessions'] },
  // Import, export
  import_detected: { kind: 'note', when: '`import`: what it read', facts: ['format', 'found'] },
  import_summary: { kind: 'note', when: '`import`: what it did', facts: ['created', 'skipped', 'updated'] },
  import_warning: { kind: 'warning', when: '`import`: an item or edge it went on past' },
  reading_stdin: { kind: 'note', when: '`import -` from a terminal: how to end the input' },
  cost_basis: {
    kind: 'note',
    when: "`cost`: what the figures rest on (the price table's date and the user's price file, models with no known price, tasks with no work left out)",
  },
  price_file_unreadable: {
    kind: 'warning',
    when: "`get`: the user's price file cannot be read; the task is shown without its Work line (`tasks cost` says what is wrong and exits 2)",
    facts: ['file'],
  },
  export_written: { kind: 'note', when: '`export --output`: the file written', facts: ['tasks', 'format', 'file'] },
  export_warning: { kind: 'warning', when: '`export`: what the format cannot hold (several tasks in progress for TodoWrite)' },
  export_left_out: {
    kind: 'note',
    when: '`export` in the TodoWrite format: what the tasks held that it has no place for (descriptions, owners, blockers, metadata)',
    facts: ['descriptions', 'owners', 'blockers', 'metadata'],
  },
  // History
  journal_line_skipped: { kind: 'warning', when: '`log`: a damaged journal line, skipped', facts: ['list', 'file', 'line', 'reason'] },
  journal_not_read: { kind: 'warning', when: '`log`: a journal that is not a regular file, not read', facts: ['list', 'reason'] },
  journal_not_written: { kind: 'warning', when: 'a change made, but the journal could not record it', facts: ['file', 'reason'] },
  moves_not_recorded: {
    kind: 'warning',
    when: '`use`: the running sessions it moves could not be recorded (the record is a link or a FIFO); the binding is made',
    facts: ['reason'],
  },
  journal_cut: {
    kind: 'warning',
    when: 'a value over 16,384 characters kept cut in the journal: undo cannot restore it in full',
    facts: ['ids'],
  },
  log_record: { kind: 'note', when: '`log`: where the record starts, and what predates it' },
  list_removed: { kind: 'note', when: '`undo`: the change taken back had made the list, now empty: removed', facts: ['list'] },
  undo_list_passed: {
    kind: 'note',
    when: '`undo`, `redo`: another list the command changed has no part left (its folder is gone)',
    facts: ['list', 'reason'],
  },
  // Sessions
  carry_summary: { kind: 'note', when: '`carry`: what it did from each source', facts: ['list', 'carried', 'left'] },
  carry_needs_force: {
    kind: 'note',
    when: '`carry --dry-run` from a list a live agent works on: a real run needs `--force`',
    facts: ['list', 'live'],
  },
  carry_others: { kind: 'note', when: '`carry`: other lists with unfinished work', facts: ['list', 'unfinished'] },
  carry_warning: { kind: 'warning', when: '`carry`: something it went on past (an edge dropped, a copy kept)' },
  restore_summary: { kind: 'note', when: '`restore`: what it did', facts: ['restored', 'skipped', 'mark'] },
  restore_warning: { kind: 'warning', when: '`restore`: a transcript or task it went on past' },
  doctor_summary: { kind: 'note', when: '`doctor`: how many problems it found, and where', facts: ['findings'] },
  list_on_network_fs: {
    kind: 'note',
    when: '`doctor`: a list looked at is on a network filesystem (NFS and the like): the machines sharing it must keep their clocks in step',
    facts: ['list', 'filesystem'],
  },
  // watch
  following_transcript: {
    kind: 'note',
    when: '`watch --session`: a TodoWrite session followed through its transcript',
    facts: ['sessionId', 'transcript'],
  },
  waiting_for_stream: { kind: 'note', when: '`watch --stream <file>`: the file does not exist yet' },
  list_found: {
    kind: 'note',
    when: "`watch --stream`: the list the run's agent writes to, found and followed from now on",
    facts: ['list'],
  },
  list_not_visible: {
    kind: 'warning',
    when: '`watch --stream`: a task the run made or changed is not in the list followed: its Task tools write elsewhere',
    facts: ['list', 'taskId'],
  },
  session_cleared: {
    kind: 'note',
    when: '`watch`: the session whose own list was watched was cleared (`/clear`): the list its process uses now, followed from here (or not, with `--no-follow`)',
    facts: ['sessionId', 'newSessionId', 'from', 'to', 'followed'],
  },
  condition_met: { kind: 'note', when: '`watch --until`: the condition held' },
  run_changed_nothing: {
    kind: 'note',
    when: '`run` and `watch --stream` passed a run that made no change to its list: the condition held without it (a reused list, or the work of another process)',
    facts: ['list', 'until'],
  },
  run_went_on: {
    kind: 'note',
    when: "`run` and `watch --stream`: the run's command started another session after a `result` (a script that runs `claude -p` twice): the run goes on, judged at the end of its output",
    facts: ['sessionId'],
  },
  input_left_open: {
    kind: 'note',
    when: "`watch --stream -`: the run's session is over and its input is still held open only by processes left behind (not Claude Code, not a script of the pipeline that started the watch or feeds it): the run ended with its result",
    facts: ['pids'],
  },
  input_handed_off: {
    kind: 'note',
    when: '`watch --stream -`: the run ended with its result and its input stayed open: it is read to its end by a process of its own (`pid`), so that its writers never meet a closed pipe, and the watch exits',
    facts: ['pid', 'holders'],
  },
  list_unreadable: {
    kind: 'warning',
    when: "`watch`: the list's path is not a folder that can be read (a FIFO, a file, a symbolic link to nothing or a loop, mode 000): the watch waits for it, its tasks as last read, and no condition is judged meanwhile",
    facts: ['dir', 'is'],
  },
  list_readable: { kind: 'note', when: "`watch`: the list's path that could not be read is a folder that reads again", facts: ['dir'] },
  warnings_limited: {
    kind: 'warning',
    when: '`watch --stream`, `run`: more input lines of a kind already warned about five times (not JSON, say): counted from now on, not said one by one',
    facts: ['kind', 'shown'],
  },
  lines_skipped: {
    kind: 'warning',
    when: '`watch --stream`, `run`: at the end of the input or the watch, how many lines of a kind were skipped, where more were than were said',
    facts: ['kind', 'count'],
  },
  task_not_yet: { kind: 'warning', when: '`watch --until task:<id>:...`: that task does not exist (yet)', facts: ['id'] },
  watch_note: { kind: 'note', when: '`watch`: anything else worth knowing while it follows a list or a run' },
  watch_warning: { kind: 'warning', when: '`watch`: a problem it went on past (a line that is not JSON, a folder that cannot be watched)' },
  // notify
  notify_following: {
    kind: 'note',
    when: '`notify`: what it follows and how it tells (the lists, the events, which desktop notifier)',
    facts: ['lists', 'events', 'targets', 'desktop'],
  },
  notify_retry: {
    kind: 'warning',
    when: '`notify`: sending to a target failed; it is tried again after a wait',
    facts: ['target', 'event', 'list', 'attempt', 'tries', 'inMs'],
  },
  notify_failed: {
    kind: 'warning',
    when: '`notify`: a notification could not be sent to a target after every try (following, it is tried again later while it holds; else the next run tells it)',
    facts: ['target', 'event', 'list'],
  },
  notify_warning: { kind: 'warning', when: '`notify`: a problem it went on past (a list it could not read)' },
  waiting_for_session: {
    kind: 'note',
    when: '`watch --until all-completed|empty`: the condition holds, but a session of the list is at work (busy, or just started): it waits for it',
    facts: ['until', 'sessions'],
  },
  session_died: {
    kind: 'note',
    when: '`watch` on a list: a session seen working on it died holding work in progress (without `--until`, or with `--allow-deaths`), or with `--until` holding none (one holding work ends the watch); the watch goes on. `watch --stream` and `run`: the session of a followed run whose input ended before its result (the agent killed) holding tasks it took up, said with the `release` command that gives them back; under `run`, `exit` says how its process ended (`signal`, else its status `code`; `state` ended when it exited 0). `tasks`: the ids it held in progress',
    facts: ['sessionId', 'state', 'pid', 'exit', 'tasks'],
  },
  // run
  agent_stderr: { kind: 'note', when: "`run --json`: a line of the agent's stderr (without `--json` it is passed through as it is)" },
  agent_stderr_skipped: {
    kind: 'note',
    when: "`run --json` and the live view: a line of the agent's stderr longer than 1 MB was skipped (its number said)",
  },
  agent_exit: { kind: 'note', when: '`run` (without `--json`, whose last line says it): how the agent exited, or who ended it' },
  leftovers_ended: {
    kind: 'note',
    when: '`run`: what the agent left running in its process group when it exited was ended',
    facts: ['pid'],
  },
  agent_lingered: { kind: 'note', when: '`run`: the agent had not exited 30 s after its run ended: it was ended', facts: ['pid'] },
  run_ended_holding: {
    kind: 'note',
    when: '`run`: tasks run ended the agent (stalled, `--timeout`, a signal) while it held tasks in progress, said with the `release` command that gives them back',
    facts: ['list', 'tasks'],
  },
  outside_group_ended: {
    kind: 'note',
    when: "`run`: processes outside the agent's process group that kept its output open (a `timeout` in a script puts its command in a group of its own) were ended (SIGTERM, then SIGKILL)",
    facts: ['pids'],
  },
  output_abandoned: { kind: 'note', when: "`run`: a process outside the agent's process group kept its output open: no longer read" },
  not_stream_json: { kind: 'warning', when: "`run`: the agent's output is not stream-json (its first line is quoted)" },
  record_failed: { kind: 'warning', when: '`run --record`: the file could not be written; the run goes on without it' },
  // stalled work
  no_stalled_work: { kind: 'note', when: '`lists --stalled`: nothing is stalled (stdout stays empty)' },
  stall_time_ahead: {
    kind: 'warning',
    when: "`list`, `lists --stalled`: tasks in progress whose file is dated ahead of this machine's clock (clock skew, a copied file): not judged stalled until the clock passes that time (`watch --fail-if-stalled` counts from when it first sees it)",
    facts: ['list', 'id', 'ids', 'aheadMs'],
  },
  stall_time_not_kept: {
    kind: 'warning',
    when: '`list`, `lists --stalled`: tasks in progress whose file has no time kept (dated 1970: a tar or zip made without times): when they last changed is unknown, so they are not judged stalled (`watch --fail-if-stalled` and `notify` count from when they first see them)',
    facts: ['list', 'id', 'ids'],
  },
  stalled_unknown: {
    kind: 'warning',
    when: '`list --stalled`, `lists --stalled`: TodoWrite items in progress whose call has no time in the transcript: not judged',
    facts: ['list', 'ids'],
  },
  // board
  board: { kind: 'note', when: '`board` in a terminal: how to stop it' },
  host_clock_skew: {
    kind: 'warning',
    when: "`doctor -H`: the host's clock differs from this machine's by more than 5 s (a lock counts as stale by its age)",
    facts: ['host', 'aheadMs'],
  },
  remote_installed: {
    kind: 'note',
    when: '`-H`: tasks copied itself to the host (its cache folder there) to run the command; said once',
    facts: ['host', 'folder', 'version'],
  },
  host_disconnected: {
    kind: 'note',
    when: '`-H <host> --disconnect`: the connection tasks kept to the host was closed (`kept`: false when there was none)',
    facts: ['host', 'kept'],
  },
  board_exposed: { kind: 'warning', when: '`board --listen`: it listens beyond this machine', facts: ['host'] },
  board_warning: {
    kind: 'warning',
    when: '`board`: what a command would say on stderr around an action (a hook failed, an inbox not written)',
  },
  browser_not_opened: {
    kind: 'warning',
    when: '`board --open`: the browser, or the private file that takes it to the board, could not be started or made (open the URL yourself)',
  },
} as const satisfies Record<string, NoticeInfo>;

export type NoticeCode = keyof typeof NOTICES;
type CodeOf<Kind> = { [C in NoticeCode]: (typeof NOTICES)[C]['kind'] extends Kind ? C : never }[NoticeCode];
/** A code said with `note()`. */
export type NoteCode = CodeOf<'note'>;
/** A code said with `warn()`. */
export type WarningCode = CodeOf<'warning'>;
