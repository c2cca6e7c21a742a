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
