/**
 * A count as people read it: 950, 1.2k, 12k, 3.4M, 1.1G. Alone in its file, with no
 * import, so that the board's page can use it too (its type check sees only the page).
 */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 999_500) return `${trim(n / 1000)}k`;
  if (n < 999_500_000) return `${trim(n / 1e6)}M`;
  return `${trim(n / 1e9)}G`;
}

const trim = (x: number) => (x < 10 ? x.toFixed(1).replace(/\.0$/, '') : String(Math.round(x)));
