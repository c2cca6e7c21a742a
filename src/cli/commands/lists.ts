import type { Command } from 'commander';
import { listFolders, summarizeLists } from '../../core/lists/list-summary.js';
import { teamMembers, teamsByList } from '../../core/teams/teams.js';
import { renderJson } from '../../render/json.js';
import { renderListsTable, renderListsLines } from '../../render/lists-table.js';
import type { App } from '../app.js';

export function registerLists(program: Command, app: App): void {
  program
    .command('lists')
    .description('every task list under the config folder, with counts, last change, and the team it belongs to')
    .addHelpText(
      'after',
      '\nA list belongs to a team when <config>/teams/<team>/config.json names a team whose name is the list id.\nPiped: id, total, completed, in_progress, pending, last change, team (-), members (comma-separated, -).\n\nExamples:\n  tasks lists\n  tasks lists --json | jq -r \'.[0].id\'\n  tasks lists --json | jq -r \'.[] | select(.team) | "\\(.id): \\(.members | join(", "))"\'',
    )
    .action(() => {
      const lists = summarizeLists(app.configDir);
      for (const name of listFolders(app.configDir).foreign) {
        app.warn(`skipped tasks/${name}: not a list agents can use (a list id is sanitized to [a-zA-Z0-9_-], so no list id names this folder)`);
      }
      const { byList, problems } = teamsByList(app.configDir);
      for (const p of problems) app.warn(`skipped team config ${p.file}: ${p.reason}`);
      const teamOf = (id: string) => {
        const team = byList.get(id);
        return team === undefined ? undefined : { name: team.name, members: teamMembers(team) };
      };
      if (app.json) {
        app.out(
          renderJson(
            lists.map((l) => ({
              id: l.id,
              path: l.dir,
              total: l.total,
              ...l.counts,
              problems: l.problems,
              changedAt: new Date(l.changedAt).toISOString(),
              team: teamOf(l.id)?.name ?? null,
              members: teamOf(l.id)?.members ?? [],
            })),
          ),
        );
        return;
      }
      if (lists.length === 0) {
        app.note(`no task lists under ${app.configDir}`);
        return;
      }
      const rows = lists.map((l) => ({ ...l, team: teamOf(l.id) }));
      app.out(app.humanLayout ? renderListsTable(rows, app.style, Date.now()) : renderListsLines(rows));
    });
}
