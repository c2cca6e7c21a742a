/** "note: ..." on stderr: something worth knowing that is neither a warning nor an error. */
export function renderNote(message: string): string {
  return `note: ${message}`;
}
