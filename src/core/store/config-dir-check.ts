import { TasksError } from '../base/errors.js';

/**
 * An empty config folder is refused, never resolved: `CLAUDE_CONFIG_DIR=` (set, empty) or
 * `--config-dir ''` would otherwise resolve to the working directory, and a cloned
 * repository there would be read as the user's own config: its `settings.json` hooks run
 * as user hooks, which need no folder trust, and its `.claude.json` could mark folders
 * trusted. A usage error names the variable or flag instead (unset it, or name a folder).
 */
export function refuseEmptyConfigDir(flag: string | undefined, env: string | undefined): void {
  if (flag !== undefined && flag.trim() === '') {
    throw new TasksError('usage', '--config-dir is empty: name the config folder (or leave the option out for ~/.claude)');
  }
  if (flag === undefined && env !== undefined && env.trim() === '') {
    throw new TasksError('usage', 'CLAUDE_CONFIG_DIR is set but empty: unset it (for ~/.claude) or name the config folder', {
      hint: "an empty value would make the current folder the config folder, its settings and hooks the user's own",
    });
  }
}
