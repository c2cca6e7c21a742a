import path from 'node:path';
import { MAX_CONFIG_BYTES, readBoundedText } from '../base/bounded-read.js';
import { TasksError } from '../base/errors.js';
import { lazySchemas } from '../base/zod.js';
import { builtInTable, type Price, type PriceTable } from './prices.js';

/**
 * A user's own prices, over the built-in table (prices.ts): `<config home>/tasks/prices.json`,
 * where the config home is `$XDG_CONFIG_HOME` when that is an absolute path, else
 * `~/.config`. Its `models` add a model, replace one's prices, or (null) take a model's
 * price away, so its cost is unknown:
 *
 *   {"date": "2026-12-10", "models": {
 *     "claude-sonnet-5-5": {"input": 2, "output": 10, "cacheWrite": 2.5, "cacheWrite1h": 4, "cacheRead": 0.1},
 *     "claude-opus-4": null}}
 *
 * USD per million tokens. Validated whole: a file that is not this shape is an error that
 * says where (a cost from a half-read price file would be a guess). No file: the table.
 */
export function priceFilePath(env: { XDG_CONFIG_HOME?: string | undefined }, home: string | undefined): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && xdg !== '' && path.isAbsolute(xdg)) return path.join(xdg, 'tasks', 'prices.json');
  return home !== undefined && home !== '' && path.isAbsolute(home) ? path.join(home, '.config', 'tasks', 'prices.json') : undefined;
}

const schemas = lazySchemas((z) => {
  const usd = z.number().finite().nonnegative();
  const rates = z.object({ input: usd, output: usd, cacheWrite: usd, cacheWrite1h: usd.optional(), cacheRead: usd }).strict();
  const price = rates.extend({ longPrompt: rates.nullable().optional(), fast: rates.optional() }).strict();
  return {
    file: z
      .object({
        date: z.string().optional(),
        source: z.string().optional(),
        models: z.record(z.string().min(1), price.nullable()),
      })
      .strict(),
  };
});

/** The price table to use: the built-in one, with the file at `file` over it when there is one. */
export function loadPrices(file: string | undefined): PriceTable {
  const table = builtInTable();
  if (file === undefined) return table;
  let text: string;
  try {
    text = readBoundedText(file, MAX_CONFIG_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return table;
    throw bad(file, (err as Error).message);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw bad(file, `not JSON (${(err as Error).message})`);
  }
  const parsed = schemas().file.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = (issue?.path ?? []).map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
    throw bad(file, `${where === '' ? '' : `${where.slice(1)}: `}${issue?.message ?? 'invalid'}`);
  }
  const own = parsed.data;
  return {
    prices: { ...table.prices, ...(own.models as Record<string, Price | null>) },
    date: own.date ?? table.date,
    source: own.source ?? `${table.source}, with ${file}`,
    file,
  };
}

function bad(file: string, why: string): TasksError {
  return new TasksError('usage', `price file ${file}: ${why}`, {
    hint: 'prices are USD per million tokens: {"models": {"<model id>": {"input": 3, "output": 15, "cacheWrite": 3.75, "cacheRead": 0.3}}}',
    details: { file },
  });
}
