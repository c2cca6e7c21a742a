/**
 * Claude Code names a session's project folder under `<config>/projects/` after its
 * working directory, every character outside [a-zA-Z0-9] replaced by '-'
 * (docs/task-store.md section 10): `/tmp/sess/work/myproj` -> `-tmp-sess-work-myproj`.
 * A name longer than 200 characters is cut there and told apart by a hash of the whole
 * directory (base 36): `-home-me-...-longfoldername-e81c94` (2.1.328 and 2.1.332 alike).
 * Without the cut, a session in a deep directory is not found in its folder: its list
 * would not be the project's, and a change there would go to another list.
 */
export function projectFolderName(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= MAX_NAME) return name;
  return `${name.slice(0, MAX_NAME)}-${Math.abs(stringHash(cwd)).toString(36)}`;
}

/** The longest folder name Claude Code makes whole. */
const MAX_NAME = 200;

/** Claude Code's hash of the directory: 31 * h + each UTF-16 code unit, in 32-bit integers. */
function stringHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = ((h << 5) - h + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * The project folder `$CLAUDE_CODE_PROJECT_DIR_NAME` names, where it applies: Claude Code
 * (2.1.328) then keeps every session's transcript in `<config>/projects/<that name>/`,
 * whatever its working directory, but only while `$CLAUDE_CONFIG_DIR` is set (not empty)
 * and the name is 1 to 64 of [A-Za-z0-9_-] and not a device name of Windows (`con`,
 * `nul`, `com1`...); any other value is ignored, and the folder is named after the
 * directory as usual. The name is taken as it is, never cleaned. The live-session file
 * and the lists are where they always are (docs/task-store.md section 10).
 */
export function namedProjectFolder(env: {
  CLAUDE_CONFIG_DIR?: string | undefined;
  CLAUDE_CODE_PROJECT_DIR_NAME?: string | undefined;
}): string | undefined {
  const name = env.CLAUDE_CODE_PROJECT_DIR_NAME;
  if (!env.CLAUDE_CONFIG_DIR || name === undefined || !NAMED.test(name) || DEVICE.test(name)) return undefined;
  return name;
}

const NAMED = /^[A-Za-z0-9_-]{1,64}$/;
const DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * Can this project folder be named after a directory (projectFolderName)? Such a name is
 * made of [a-zA-Z0-9-] and starts as an absolute path does: '-' for '/', or a drive
 * (`C--` for `C:\`). Any other folder (`myproj`, `api_v2`) was named by
 * `$CLAUDE_CODE_PROJECT_DIR_NAME`: its sessions may have run anywhere, and each one's
 * transcript says where.
 */
export function namedAfterDirectory(folder: string): boolean {
  return /^(?:-|[A-Za-z]--)[A-Za-z0-9-]*$/.test(folder);
}
