/**
 * Token counts and their sums. A message's usage is counted in whole tokens; where the
 * rule (cost-rule.ts) splits a message among several tasks, each share is whole too
 * (splitTokens), so that the tasks' shares and the unattributed work add up to exactly
 * what the messages used. Sums are kept per price bucket (a model, and whether the
 * message was in fast mode or had a long prompt, which some models price apart), since a
 * price is per model and per kind of token.
 */

/** The kinds of tokens a message's usage reports (Claude Code's `message.usage`). */
export interface Tokens {
  input: number;
  output: number;
  /** `cache_read_input_tokens`. */
  cacheRead: number;
  /** `cache_creation_input_tokens`: every cache write, 5-minute and 1-hour. */
  cacheCreation: number;
  /** Of cacheCreation, the writes kept for an hour (`cache_creation.ephemeral_1h_input_tokens`): priced apart. */
  cacheCreation1h: number;
}

/** Above this many prompt tokens (input, cache reads and writes) a message has a long prompt, which some models price apart. */
export const LONG_PROMPT_TOKENS = 200_000;

/** What prices a message: its model, fast mode, a long prompt. */
export interface Bucket {
  model: string;
  fast: boolean;
  long: boolean;
}

export const bucketKey = (b: Bucket): string => `${b.model}\u0000${b.fast ? 'f' : '-'}${b.long ? 'l' : '-'}`;

export function bucketOf(key: string): Bucket {
  const cut = key.lastIndexOf('\u0000');
  const flags = key.slice(cut + 1);
  return { model: key.slice(0, cut), fast: flags[0] === 'f', long: flags[1] === 'l' };
}

export const noTokens = (): Tokens => ({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0, cacheCreation1h: 0 });

export function addTokens(to: Tokens, more: Tokens): void {
  to.input += more.input;
  to.output += more.output;
  to.cacheRead += more.cacheRead;
  to.cacheCreation += more.cacheCreation;
  to.cacheCreation1h += more.cacheCreation1h;
}

/**
 * `tokens` split into `parts` whole shares as even as can be: each gets the floor, and the
 * remainder goes one token each to the shares from `turn` on (mod parts). Callers turn
 * the starting share from message to message, so that no task gets every odd token.
 * The 1-hour cache writes are split on their own, and stay within each share's writes.
 */
export function splitTokens(tokens: Tokens, parts: number, turn: number): Tokens[] {
  const shares = Array.from({ length: parts }, noTokens);
  const split = (total: number, set: (share: Tokens, n: number) => void) => {
    const each = Math.floor(total / parts);
    const rest = total - each * parts;
    for (let i = 0; i < parts; i++) set(shares[i] as Tokens, each + ((((i - turn) % parts) + parts) % parts < rest ? 1 : 0));
  };
  split(tokens.input, (s, n) => (s.input = n));
  split(tokens.output, (s, n) => (s.output = n));
  split(tokens.cacheRead, (s, n) => (s.cacheRead = n));
  split(tokens.cacheCreation1h, (s, n) => (s.cacheCreation1h = n));
  split(tokens.cacheCreation - tokens.cacheCreation1h, (s, n) => (s.cacheCreation = s.cacheCreation1h + n));
  return shares;
}

/** What a set of messages (or shares of them) used, by price bucket, and how many messages. */
export class Tally {
  readonly buckets = new Map<string, Tokens>();
  messages = 0;
  activeMs = 0;
  /** Of activeMs, the time in which a session may have had no process (a crash no record places). */
  unsureMs = 0;

  add(bucket: string, tokens: Tokens): void {
    let sum = this.buckets.get(bucket);
    if (sum === undefined) this.buckets.set(bucket, (sum = noTokens()));
    addTokens(sum, tokens);
  }

  merge(other: Tally): void {
    for (const [bucket, tokens] of other.buckets) this.add(bucket, tokens);
    this.messages += other.messages;
    this.activeMs += other.activeMs;
    this.unsureMs += other.unsureMs;
  }

  tokens(): Tokens {
    const sum = noTokens();
    for (const t of this.buckets.values()) addTokens(sum, t);
    return sum;
  }

  /** The models used, most tokens first. */
  models(): string[] {
    const by = new Map<string, number>();
    for (const [key, t] of this.buckets) {
      const { model } = bucketOf(key);
      by.set(model, (by.get(model) ?? 0) + t.input + t.output + t.cacheRead + t.cacheCreation);
    }
    return [...by].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([m]) => m);
  }
}
