import type { Command } from 'commander';
import type { App } from '../app.js';
import { registerBlock } from './block.js';
import { registerClaim } from './claim.js';
import { registerCompletion } from './completion.js';
import { registerCreate } from './create.js';
import { registerDelete } from './delete.js';
import { registerExport } from './export.js';
import { registerGet } from './get.js';
import { registerImport } from './import.js';
import { registerList } from './list.js';
import { registerLists } from './lists.js';
import { registerRelease } from './release.js';
import { registerUnblock } from './unblock.js';
import { registerUpdate } from './update.js';
import { registerWatch } from './watch.js';

/** Every subcommand, one file each; the order here is the order in `--help`. */
export function registerCommands(program: Command, app: App): void {
  registerList(program, app);
  registerGet(program, app);
  registerCreate(program, app);
  registerUpdate(program, app);
  registerClaim(program, app);
  registerRelease(program, app);
  registerBlock(program, app);
  registerUnblock(program, app);
  registerDelete(program, app);
  registerLists(program, app);
  registerWatch(program, app);
  registerImport(program, app);
  registerExport(program, app);
  registerCompletion(program, app);
}
