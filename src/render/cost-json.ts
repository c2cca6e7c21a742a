import type { CostReport, CostUsage } from '../core/cost/cost-report.js';

/**
 * `tasks cost --json` (docs/json-output.md, docs/schemas/cost.schema.json): every task
 * (those gone whose cost is known too, marked deleted), every owner, list and session, the
 * unattributed work and the total, each with tokens by kind, active ms, messages, models
 * and an estimated cost in USD (null: a model with no known price). Dollars are rounded to
 * 1e-10 (what floating point adds past that is noise, not money).
 */
export const usd = (v: number | null) => (v === null ? null : Math.round(v * 1e10) / 1e10);

/** A task no session worked on (`list --cost` of a task the report does not name). */
export const NO_USAGE: CostUsage = {
  tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
  activeMs: 0,
  unsureMs: 0,
  messages: 0,
  models: [],
  costUsd: 0,
};

export function usageJson(u: CostUsage) {
  return {
    tokens: { ...u.tokens },
    activeMs: u.activeMs,
    unsureMs: u.unsureMs,
    messages: u.messages,
    models: [...u.models],
    costUsd: usd(u.costUsd),
  };
}

export function costJson(r: CostReport) {
  const { activeMs: _none, unsureMs: _unsure, ...unattributed } = usageJson(r.unattributed);
  return {
    tasks: r.tasks.map((t) => ({
      list: t.list,
      id: t.id,
      subject: t.subject,
      owner: t.owner,
      status: t.status,
      deleted: t.deleted,
      ...usageJson(t),
    })),
    owners: r.owners.map((o) => ({ owner: o.owner, ...usageJson(o) })),
    lists: r.lists.map((l) => ({ list: l.list, ...usageJson(l) })),
    sessions: r.sessions.map((s) => ({
      session: s.session,
      lists: s.lists,
      ...usageJson(s),
      unattributed: (({ activeMs: _a, unsureMs: _u, ...u }) => u)(usageJson(s.unattributed)),
    })),
    unattributed: { ...unattributed, sessions: r.unattributed.sessions },
    total: usageJson(r.total),
    since: r.window.since === undefined ? null : new Date(r.window.since).toISOString(),
    until: r.window.until === undefined ? null : new Date(r.window.until).toISOString(),
    prices: { ...r.prices },
    unpricedModels: [...r.unpriced],
  };
}
