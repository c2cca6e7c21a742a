/** Task ids as agents print them: "#2, #5". */
export function idRefs(ids: readonly string[]): string {
  return ids.map((i) => `#${i}`).join(', ');
}
