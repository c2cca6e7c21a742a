import { oneLine } from './text.js';

/** Task ids as agents print them: "#2, #5". Ids come from files: no control characters. */
export function idRefs(ids: readonly string[]): string {
  return ids.map((i) => `#${oneLine(i)}`).join(', ');
}
