/**
 * Options that take task ids take one value each, so `block 4 --by 2 5` leaves "5" as an
 * extra argument, and commander's "too many arguments" would not say why. When an extra
 * word follows the value of an id option, this names the mistake and the two right forms.
 */
const ID_OPTIONS = new Set(['--by', '--blocked-by', '--blocks', '--add-blocks', '--add-blocked-by']);

const looksLikeIds = (word: string): boolean => /^[0-9][0-9,]*$/.test(word);

export function explainIdOptionMistake(argv: readonly string[]): string | undefined {
  for (let i = 0; i + 2 < argv.length; i++) {
    const option = argv[i] as string;
    const value = argv[i + 1] as string;
    const extra = argv[i + 2] as string;
    if (ID_OPTIONS.has(option) && looksLikeIds(value) && looksLikeIds(extra)) {
      return `unexpected argument "${extra}": ${option} takes one id; give several as ${option} ${value},${extra} or repeat ${option}`;
    }
  }
  return undefined;
}
