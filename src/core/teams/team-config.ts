import fs from 'node:fs';
import path from 'node:path';
import { MAX_CONFIG_BYTES, readBoundedText } from '../base/bounded-read.js';
import { errnoCode } from '../base/errors.js';
import { lazySchemas } from '../base/zod.js';
import { sanitizeListId } from '../store/paths.js';

/**
 * Agent teams' configs (docs/task-store.md section 8):
 * `<config>/teams/<team>/config.json` with `{name, members: [{name, agentId, ...}],
 * ...}`. Read only, never written by us.
 *
 * Claude Code names a team's folder `name.replace(/[^a-zA-Z0-9]/g, '-').toLowerCase()`,
 * its task list `sanitize(name)` (the list rule, which keeps `_` and case), and its
 * inboxes `teams/<sanitize(name)>/inboxes/`. For the usual lower-case names all agree.
 */

export interface TeamMember {
  name: string;
  agentId?: string | undefined;
}

export interface Team {
  name: string;
  /** The folder holding config.json. */
  dir: string;
  members: TeamMember[];
}

export interface TeamProblem {
  file: string;
  reason: string;
}

const schemas = lazySchemas((z) => ({
  Member: z.object({ name: z.string().min(1), agentId: z.string().optional() }).passthrough(),
  TeamConfig: z.object({ name: z.string().min(1), members: z.array(z.unknown()).optional() }).passthrough(),
}));

export function teamsRoot(configDir: string): string {
  return path.join(configDir, 'teams');
}

/** Claude Code's folder name for a team. */
export function teamDirName(teamName: string): string {
  return teamName.replace(/[^a-zA-Z0-9]/g, '-').toLowerCase();
}

/** The task list a team's agents use: the team name, sanitized as list ids are. */
export function teamListId(teamName: string): string {
  return sanitizeListId(teamName);
}

export type TeamRead = { kind: 'ok'; team: Team } | { kind: 'missing' } | { kind: 'invalid'; reason: string };

export function readTeam(dir: string): TeamRead {
  const file = path.join(dir, 'config.json');
  let text: string;
  try {
    text = readBoundedText(file, MAX_CONFIG_BYTES);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'invalid', reason: (err as Error).message };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', reason: `not valid JSON (${(err as Error).message})` };
  }
  const config = schemas().TeamConfig.safeParse(parsed);
  if (!config.success)
    return {
      kind: 'invalid',
      reason: `${config.error.issues[0]?.path.join('.') || 'config'}: ${config.error.issues[0]?.message ?? 'invalid'}`,
    };
  // A malformed member is left out rather than hiding the whole team.
  const members = (config.data.members ?? []).flatMap((m) => {
    const member = schemas().Member.safeParse(m);
    return member.success ? [{ name: member.data.name, agentId: member.data.agentId }] : [];
  });
  return { kind: 'ok', team: { name: config.data.name, dir, members } };
}

/** Every readable team under `<config>/teams/`, with the configs that could not be read. */
export function listTeams(configDir: string): { teams: Team[]; problems: TeamProblem[] } {
  let names: string[];
  try {
    names = fs
      .readdirSync(teamsRoot(configDir), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return { teams: [], problems: [] };
  }
  const teams: Team[] = [];
  const problems: TeamProblem[] = [];
  for (const name of names) {
    const dir = path.join(teamsRoot(configDir), name);
    const read = readTeam(dir);
    if (read.kind === 'ok') teams.push(read.team);
    else if (read.kind === 'invalid') problems.push({ file: path.join(dir, 'config.json'), reason: read.reason });
  }
  return { teams, problems };
}
