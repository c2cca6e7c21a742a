/** `--json`: one document, two-space indented like the task files themselves. */
export function renderJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
