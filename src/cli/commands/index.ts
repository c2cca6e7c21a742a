import type { Command } from 'commander';
import type { App } from '../app.js';
import { registerCompletion } from './completion.js';
import { registerCreate } from './create.js';
import { registerDelete } from './delete.js';
import { registerGet } from './get.js';
import { registerList } from './list.js';
import { registerLists } from './lists.js';
import { registerUpdate } from './update.js';

/** Every subcommand, one file each; the order here is the order in `--help`. */
export function registerCommands(program: Command, app: App): void {
  registerList(program, app);
  registerGet(program, app);
  registerCreate(program, app);
  registerUpdate(program, app);
  registerDelete(program, app);
  registerLists(program, app);
  registerCompletion(program, app);
}
