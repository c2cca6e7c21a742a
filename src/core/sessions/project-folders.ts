/**
 * Claude Code names a session's project folder under `<config>/projects/` after its
 * working directory, every character outside [a-zA-Z0-9] replaced by '-'
 * (docs/task-store.md section 10): `/tmp/sess/work/myproj` -> `-tmp-sess-work-myproj`.
 */
export function projectFolderName(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}
