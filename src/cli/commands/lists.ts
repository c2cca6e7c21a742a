import type { Command } from 'commander';
import { summarizeLists } from '../../core/lists.js';
import { renderJson } from '../../render/json.js';
import { renderListsTable, renderListsLines } from '../../render/lists-table.js';
import type { App } from '../app.js';

export function registerLists(program: Command, app: App): void {
  program
    .command('lists')
    .description('every task list under the config folder, with counts and last change')
    .addHelpText('after', '\nExamples:\n  tasks lists\n  tasks lists --json | jq -r \'.[0].id\'')
    .action(() => {
      const lists = summarizeLists(app.configDir);
      if (app.json) {
        app.out(
          renderJson(
            lists.map((l) => ({ id: l.id, path: l.dir, total: l.total, ...l.counts, problems: l.problems, changedAt: new Date(l.changedAt).toISOString() })),
          ),
        );
        return;
      }
      if (lists.length === 0) {
        app.note(`no task lists under ${app.configDir}`);
        return;
      }
      app.out(app.humanLayout ? renderListsTable(lists, app.style, Date.now()) : renderListsLines(lists));
    });
}
