import { type Bucket, bucketOf, type Tokens } from './usage-tally.js';

/**
 * What tokens cost: USD per million tokens of each kind, per model, as Anthropic
 * publishes them for its API (standard speed, global inference). A cost from it is an
 * estimate of what the same messages would cost through the API: a subscription bills
 * otherwise, and a price changed since a message was sent is not that message's price.
 *
 * A model that is not in the table has no cost (null), never a guess: not a model name
 * from another family, nor a "similar" one. Only prices confirmed by Anthropic are in it:
 * on its own pages, or in the price table that Claude Code (Anthropic's own program)
 * carries and uses for its own cost figure (`total_cost_usd` in its `result`, `costUSD`).
 * That table was read in Claude Code 2.1.328 and 2.1.332 (the two are the same): its
 * baked-in model catalog, `pricing_tiers` and each model's `pricing`. It is the source for
 * Claude Sonnet 4.5 and 4.6, Claude Haiku 4.5, Claude 3.5 Sonnet, Claude Sonnet 5.5 and
 * Claude Fable and Mythos 5.2, and it agrees with every other entry here. Where the two
 * sources differ: Claude Code prices every Sonnet 4.x message alike, however long its
 * prompt, while Anthropic's pages priced Sonnet 4's prompts over 200,000 tokens apart, at
 * rates whose cache prices are not confirmed; so a Sonnet 4.x message with such a prompt
 * has no cost here. And Sonnet 5.5's overview page gives cache reads at $0.20, Claude
 * Code $0.10: kept at $0.10, the figure Claude Code prices its own runs at.
 * Left out: Claude Haiku 5.5, whose prompts over 100,000 tokens are priced apart (this
 * table knows only a 200,000-token band), and Claude 3 Haiku's entry is from the pages
 * alone (Claude Code's catalog no longer lists it). A user adds or corrects a model in
 * their own price file (price-file.ts).
 */
export const PRICES_DATE = '2026-12-03';
export const PRICES_SOURCE =
  "https://platform.claude.com/docs/en/about-claude/pricing, the model overview pages (https://platform.claude.com/docs/en/models/<model>/overview) and Claude Code 2.1.332's own price table";

export interface Price {
  /** USD per million tokens. */
  input: number;
  output: number;
  /** A 5-minute cache write. */
  cacheWrite: number;
  /** A 1-hour cache write; undefined: not known (a message with such writes has no cost). */
  cacheWrite1h?: number | undefined;
  cacheRead: number;
  /**
   * Messages whose prompt (input, cache reads and writes) is over 200,000 tokens: their
   * own prices; null: not known (such a message has no cost); undefined: the same prices.
   */
  longPrompt?: Omit<Price, 'longPrompt' | 'fast'> | null | undefined;
  /** Fast mode's prices; undefined: not known (a message in fast mode has no cost). */
  fast?: Omit<Price, 'longPrompt' | 'fast'> | undefined;
}

const flat = (input: number, output: number, cacheWrite: number, cacheWrite1h: number, cacheRead: number): Price => ({
  input,
  output,
  cacheWrite,
  cacheWrite1h,
  cacheRead,
});

/** By model id as the API names it in `message.model` (a dated id, `-YYYYMMDD`, is looked up without its date too). */
export const BUILT_IN_PRICES: Readonly<Record<string, Price>> = {
  'claude-fable-5-1': flat(10, 50, 12.5, 20, 0.25),
  'claude-mythos-5-1': flat(10, 50, 12.5, 20, 0.25),
  'claude-fable-5': flat(10, 50, 12.5, 20, 1),
  'claude-mythos-5': flat(10, 50, 12.5, 20, 1),
  'claude-opus-5-5': flat(4, 20, 5, 8, 0.2),
  'claude-opus-5': flat(5, 25, 6.25, 10, 0.5),
  'claude-opus-4-8': flat(5, 25, 6.25, 10, 0.5),
  'claude-opus-4-7': flat(5, 25, 6.25, 10, 0.5),
  'claude-opus-4-6': flat(5, 25, 6.25, 10, 0.5),
  'claude-opus-4-5': flat(5, 25, 6.25, 10, 0.5),
  'claude-opus-4-1': flat(15, 75, 18.75, 30, 1.5),
  'claude-opus-4': flat(15, 75, 18.75, 30, 1.5),
  'claude-opus-4-0': flat(15, 75, 18.75, 30, 1.5),
  'claude-fable-5-2': flat(8, 40, 10, 16, 0.2),
  'claude-mythos-5-2': flat(8, 40, 10, 16, 0.2),
  'claude-sonnet-5-5': flat(2, 10, 2.5, 4, 0.1),
  'claude-sonnet-5': flat(2, 10, 2.5, 4, 0.2),
  // Over 200,000 prompt tokens (a 1M-token context) Anthropic priced Sonnet 4 apart, at rates whose cache prices are not confirmed; Claude Code does not.
  'claude-sonnet-4-6': { ...flat(3, 15, 3.75, 6, 0.3), longPrompt: null },
  'claude-sonnet-4-5': { ...flat(3, 15, 3.75, 6, 0.3), longPrompt: null },
  'claude-sonnet-4': { ...flat(3, 15, 3.75, 6, 0.3), longPrompt: null },
  'claude-sonnet-4-0': { ...flat(3, 15, 3.75, 6, 0.3), longPrompt: null },
  'claude-3-7-sonnet': flat(3, 15, 3.75, 6, 0.3),
  'claude-3-5-sonnet': flat(3, 15, 3.75, 6, 0.3),
  'claude-haiku-4-5': flat(1, 5, 1.25, 2, 0.1),
  'claude-3-5-haiku': flat(0.8, 4, 1, 1.6, 0.08),
  'claude-3-haiku': flat(0.25, 1.25, 0.3, 0.5, 0.03),
};

export interface PriceTable {
  prices: Readonly<Record<string, Price | null>>;
  /** Where the table came from: the built-in one, or with a user's file over it. */
  date: string;
  source: string;
  file?: string | undefined;
}

export const builtInTable = (): PriceTable => ({ prices: BUILT_IN_PRICES, date: PRICES_DATE, source: PRICES_SOURCE });

/** A model's price: by its id, else by its id without a `-YYYYMMDD` date; undefined: not known. */
export function priceOf(table: PriceTable, model: string): Price | undefined {
  const own = Object.hasOwn(table.prices, model) ? table.prices[model] : undefined;
  if (own !== undefined) return own ?? undefined;
  const undated = /^(.+)-\d{8}$/.exec(model)?.[1];
  if (undated === undefined || !Object.hasOwn(table.prices, undated)) return undefined;
  return table.prices[undated] ?? undefined;
}

/** What one bucket's tokens cost in USD; undefined when its price is not known. */
export function bucketCost(table: PriceTable, bucket: Bucket, t: Tokens): number | undefined {
  const base = priceOf(table, bucket.model);
  if (base === undefined) return undefined;
  let p: Omit<Price, 'longPrompt' | 'fast'> | null | undefined = base;
  if (bucket.fast) p = base.fast;
  else if (bucket.long && base.longPrompt !== undefined) p = base.longPrompt;
  if (p === undefined || p === null) return undefined;
  const hour = t.cacheCreation1h;
  if (hour > 0 && p.cacheWrite1h === undefined) return undefined;
  const perMillion =
    t.input * p.input +
    t.output * p.output +
    t.cacheRead * p.cacheRead +
    (t.cacheCreation - hour) * p.cacheWrite +
    hour * (p.cacheWrite1h ?? 0);
  return perMillion / 1_000_000;
}

/**
 * What has no price in a bucket bucketCost cannot price, for a person: the model when the
 * table does not know it, else the part of its use that has none (a price file may add it).
 */
function unpricedPart(table: PriceTable, bucket: Bucket, t: Tokens): string {
  const base = priceOf(table, bucket.model);
  if (base === undefined) return bucket.model;
  if (bucket.fast && (base.fast === undefined || base.fast === null)) return `${bucket.model} (fast mode)`;
  if (!bucket.fast && bucket.long && base.longPrompt === null) return `${bucket.model} (over 200,000 prompt tokens)`;
  if (t.cacheCreation1h > 0) return `${bucket.model} (1-hour cache writes)`;
  return bucket.model;
}

/**
 * What a tally's buckets cost, and the models it could not price (then the cost is null),
 * with what of each has no price (unpricedPart).
 */
export function costOf(
  table: PriceTable,
  buckets: ReadonlyMap<string, Tokens>,
): { usd: number | null; unpriced: string[]; unpricedParts: string[] } {
  let usd = 0;
  const unpriced = new Set<string>();
  const parts = new Set<string>();
  for (const [key, tokens] of buckets) {
    const bucket = bucketOf(key);
    const cost = bucketCost(table, bucket, tokens);
    if (cost === undefined) {
      unpriced.add(bucket.model);
      parts.add(unpricedPart(table, bucket, tokens));
    } else usd += cost;
  }
  return { usd: unpriced.size > 0 ? null : usd, unpriced: [...unpriced].sort(), unpricedParts: [...parts].sort() };
}
