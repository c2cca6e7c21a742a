import path from 'node:path';
import { MAX_CONFIG_BYTES, readBoundedText } from '../base/bounded-read.js';
import { isDirectory } from '../base/is-directory.js';
import { LIST_ID_VARIABLE, listIdOfValue, settingsWithVariable } from '../binding/project-binding.js';
import { type SettingsPlaces, settingsFilesFor } from '../binding/settings-files.js';
import { folderTrust, type TrustSources } from '../hooks/folder-trust.js';
import { hasTaskHooks } from '../hooks/hook-settings.js';
import { nearNames } from '../lists/near-names.js';
import { namedListsOf } from '../sessions/list-sessions.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { listDirOf } from '../store/paths.js';
import { type DoctorFinding, type Fix, shellWord } from './doctor-findings.js';

/**
 * Where `tasks` and the agents of a directory part ways by configuration
 * (docs/task-store.md sections 1, 7 and 11): the list variable set for one and not the
 * other, a binding that another settings file overrides, task hooks skipped because the
 * folder is not trusted.
 */
export interface SettingCheckContext {
  index: SessionIndex;
  places: SettingsPlaces;
  trust: TrustSources;
  /** `$CLAUDE_CODE_TASK_LIST_ID` as `tasks` has it. */
  listVariable: string | undefined;
}

/** Checks of the directory `dir` (where sessions start), against its recent `sessions` that used a list. */
export function settingFindings(ctx: SettingCheckContext, dir: string, sessions: readonly SessionInfo[]): DoctorFinding[] {
  return [...variableFindings(ctx, dir, sessions), ...shadowFindings(ctx, dir), ...hookFindings(ctx, dir)];
}

function variableFindings(ctx: SettingCheckContext, dir: string, sessions: readonly SessionInfo[]): DoctorFinding[] {
  const bound = settingsWithVariable(settingsFilesFor(dir, ctx.places), LIST_ID_VARIABLE, [], 1)[0];
  const mine = ctx.listVariable === undefined ? undefined : listIdOfValue(ctx.listVariable);
  const local = settingsFilesFor(dir, ctx.places).find((f) => f.scope === 'local')?.file;
  if (mine !== undefined && bound !== undefined) {
    const theirs = listIdOfValue(bound.value);
    if (theirs === mine) return [];
    const fixes: Fix[] = [];
    if (bound.scope === 'local')
      fixes.push({ kind: 'command', command: `tasks use ${shellWord(mine)}`, note: 'the agents started here use your list' });
    fixes.push({
      kind: 'command',
      command: `unset ${LIST_ID_VARIABLE}`,
      note: `tasks uses ${theirs === undefined ? "the agents' own lists" : `"${theirs}"`} as they do`,
    });
    return [
      {
        code: 'list_variable_overridden',
        message: `${LIST_ID_VARIABLE} is "${ctx.listVariable}" for tasks, but Claude Code sessions started in ${dir} use ${theirs === undefined ? 'their own lists' : `list "${theirs}"`}: ${bound.file} sets it, and settings override the environment`,
        list: mine,
        file: bound.file,
        fixes,
      },
    ];
  }
  if (mine !== undefined && !isDirectory(listDirOf(ctx.index.configDir, mine))) {
    const unknown = unknownListFinding(ctx, sessions, mine);
    if (unknown !== undefined) return [unknown];
  }
  if (mine !== undefined) {
    // Sessions here that made tasks in their own lists never had the variable.
    const own = sessions.filter((s) => ctx.index.listsOfSession(s.sessionId).length > 0);
    if (own.length === 0) return [];
    return [
      {
        code: 'list_variable_not_shared',
        message: `${LIST_ID_VARIABLE} is "${ctx.listVariable}" for tasks, but the agents started in ${dir} do not have it: ${own.length === 1 ? `session ${own[0]?.sessionId.slice(0, 8)} wrote` : `${own.length} sessions wrote`} to ${own.length === 1 ? 'its own list' : 'their own lists'}`,
        list: mine,
        session: own[0]?.sessionId,
        fixes: [
          { kind: 'command', command: `tasks use ${shellWord(mine)}`, note: 'every new session started here uses it' },
          ...(local === undefined
            ? []
            : [{ kind: 'settings' as const, file: local, snippet: { env: { [LIST_ID_VARIABLE]: mine } }, note: 'what tasks use writes' }]),
        ],
      },
    ];
  }
  if (bound !== undefined) return [];
  // Neither tasks nor settings name a list, yet the agents here worked on a named one (their environment had it).
  const named = namedListsOf(ctx.index, new Set(sessions.map((s) => s.sessionId)))[0];
  if (named === undefined) return [];
  const { list, sessions: here } = named;
  return [
    {
      code: 'agents_list_not_chosen',
      message: `the agents started in ${dir} worked on list "${list}" (named by ${LIST_ID_VARIABLE} in their environment: session ${here[0]?.slice(0, 8)}), which tasks here does not know to use`,
      list,
      session: here[0],
      fixes: [
        { kind: 'command', command: `tasks use ${shellWord(list)}`, note: 'tasks and the sessions started here share it' },
        { kind: 'command', command: `export ${LIST_ID_VARIABLE}=${shellWord(list)}`, note: 'in the shell that runs tasks' },
      ],
    },
  ];
}

/**
 * The variable names a list that does not exist, while the agents here worked on a named
 * list (their transcripts tie them to it): most likely a typo. Said as such, with the list
 * the agents used (the nearest name first), never the typo as a fix.
 */
function unknownListFinding(ctx: SettingCheckContext, sessions: readonly SessionInfo[], mine: string): DoctorFinding | undefined {
  const used = namedListsOf(ctx.index, new Set(sessions.map((s) => s.sessionId))).map((n) => n.list);
  if (used.length === 0) return undefined;
  const near = nearNames(mine, used);
  const list = (near[0] ?? used[0]) as string;
  return {
    code: 'list_variable_unknown',
    message: `${LIST_ID_VARIABLE} is "${ctx.listVariable}" for tasks, but no list "${mine}" exists: the agents here used ${used.map((l) => `"${l}"`).join(', ')}${near.length > 0 ? ` (did you mean "${list}"?)` : ''}`,
    list: mine,
    fixes: [
      { kind: 'command', command: `export ${LIST_ID_VARIABLE}=${shellWord(list)}`, note: 'in the shell that runs tasks' },
      { kind: 'command', command: `tasks use ${shellWord(list)}`, note: 'tasks and the sessions started here share it' },
    ],
  };
}

/** A settings file that binds a list, overridden by a file Claude Code reads first. */
function shadowFindings(ctx: SettingCheckContext, dir: string): DoctorFinding[] {
  const all = settingsWithVariable(settingsFilesFor(dir, ctx.places), LIST_ID_VARIABLE);
  const [winner, ...rest] = all;
  if (winner === undefined) return [];
  const used = listIdOfValue(winner.value);
  return rest
    .filter((s) => listIdOfValue(s.value) !== used)
    .map((s) => ({
      code: 'binding_shadowed' as const,
      message: `${s.file} binds list "${s.value}", but Claude Code sessions started in ${dir} use ${used === undefined ? 'their own lists' : `"${used}"`}: ${winner.file} (${winner.scope} settings) is read first`,
      file: s.file,
      list: listIdOfValue(s.value),
      fixes: [
        { kind: 'remove-setting' as const, file: s.file, key: LIST_ID_VARIABLE, note: 'it has no effect' },
        ...(winner.scope === 'local'
          ? [{ kind: 'command' as const, command: `tasks use ${shellWord(s.value)}`, note: `to use "${s.value}" instead` }]
          : [{ kind: 'remove-setting' as const, file: winner.file, key: LIST_ID_VARIABLE, note: `to use "${s.value}" instead` }]),
      ],
    }));
}

/** Project and local task hooks that `tasks` skips here (and an interactive Claude Code asks about first): the folder is not trusted. */
function hookFindings(ctx: SettingCheckContext, dir: string): DoctorFinding[] {
  const files = [path.join(dir, '.claude', 'settings.json'), path.join(dir, '.claude', 'settings.local.json')].filter(holdsTaskHooks);
  if (files.length === 0) return [];
  const trust = folderTrust(dir, ctx.trust);
  if (trust.trusted) return [];
  return [
    {
      code: 'hooks_untrusted',
      message: `the task hooks in ${files.join(' and ')} are skipped: ${dir} is not trusted in Claude Code (tasks runs project hooks only where Claude Code would, and an interactive claude asks first)`,
      file: files[0],
      fixes: [
        { kind: 'command', command: `cd ${shellWord(trust.recordKey)} && claude`, note: 'accept the trust dialog' },
        { kind: 'settings', file: trust.configFile, snippet: { projects: { [trust.recordKey]: { hasTrustDialogAccepted: true } } } },
      ],
    },
  ];
}

function holdsTaskHooks(file: string): boolean {
  try {
    const parsed = JSON.parse(readBoundedText(file, MAX_CONFIG_BYTES)) as { hooks?: unknown } | null;
    return typeof parsed === 'object' && parsed !== null && hasTaskHooks(parsed.hooks);
  } catch {
    return false;
  }
}
