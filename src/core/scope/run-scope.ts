/**
 * A run's scope: what one run of `tasks` (a command, in a process of its own or in a
 * test's; an action of the board) records and listens to while it runs (who hears its
 * task writes, so that its journal records them; who hears its lock waits; the locks it
 * holds), kept with the run instead of in the process, so that two runs in one process
 * can overlap and each hears only its own. A run makes one (`new RunScope()`) and runs
 * inside it (inScope); core code finds the scope it runs in through the async context
 * (AsyncLocalStorage), so no call in between has to pass it on. The time and the
 * environment a run works with are not here: they reach core as arguments.
 *
 * Each concept keeps its part of a scope in a slot it defines (scopeSlot): the scope
 * knows none of them, so it sits below every folder that uses it. Code that runs in no
 * scope (a library caller that made none) has nobody listening to it.
 *
 * The cost, measured against the same build without it (CPU time of whole commands,
 * medians of 25 interleaved runs): 1 to 3 ms a run on Node 20, where the async context
 * rides on async hooks; none measurable on Node 24, whose async context frames carry it.
 * So the command line's process, which runs one run alone, keeps its scope without one
 * (asProcessRun).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A part of every scope, made the first time a scope is asked for it. */
export interface ScopeSlot<T> {
  /** What the part holds, for a reader of the code. */
  readonly name: string;
  readonly make: () => T;
}

export function scopeSlot<T>(name: string, make: () => T): ScopeSlot<T> {
  return { name, make };
}

export class RunScope {
  private readonly parts = new Map<ScopeSlot<unknown>, unknown>();

  /** This scope's part for `slot`, made on first use. */
  part<T>(slot: ScopeSlot<T>): T {
    if (!this.parts.has(slot)) this.parts.set(slot, slot.make());
    return this.parts.get(slot) as T;
  }
}

/**
 * Which scope the code running now belongs to. The storage holds no run's state itself:
 * each async context carries its own scope, and this is only the handle to read it by.
 * Made by the first inScope: a process that runs one run alone never makes it (below).
 */
let running: AsyncLocalStorage<RunScope> | undefined;

/**
 * The scope of a process that runs one run and nothing beside it (the command line's
 * process: main.ts). Such a run needs no async context to find its scope by, and on
 * Node 20 and 22 an async context rides on async hooks, which tax every promise the run
 * makes. Runs in a scope of their own (inScope) still find theirs first.
 */
let processScope: RunScope | undefined;

/** Run `fn` (and everything it starts: awaits, timers, callbacks) in `scope`. */
export function inScope<T>(scope: RunScope, fn: () => T): T {
  running ??= new AsyncLocalStorage<RunScope>();
  return running.run(scope, fn);
}

/** Run `fn` as the process's one run: `scope` is the scope of all code of the process outside any inScope. */
export function asProcessRun<T>(scope: RunScope, fn: () => T): T {
  if (processScope !== undefined) throw new Error('a process has one process run (core/scope): run others inScope');
  processScope = scope;
  return fn();
}

/** The scope the code running now is in; undefined outside any. */
export function currentScope(): RunScope | undefined {
  return running?.getStore() ?? processScope;
}

/**
 * The scope of the code running now, for code that registers something in it (a
 * listener): outside any scope nothing would ever call it, which is a mistake to report
 * at once rather than a record silently lost.
 */
export function requireScope(what: string): RunScope {
  const scope = currentScope();
  if (scope === undefined) throw new Error(`${what} needs a run scope (core/scope): nothing outside one is heard`);
  return scope;
}

/** The part `slot` of the scope the code running now is in; undefined outside any scope. */
export function scopePart<T>(slot: ScopeSlot<T>): T | undefined {
  return currentScope()?.part(slot);
}

/**
 * `fn`, bound to the scope of the code that calls this: for a listener that something
 * outside the run calls (a signal's, on the process), so that what it sets off (an abort,
 * and what the abort undoes or writes) is the run's.
 */
export function boundToScope<F extends (...args: never[]) => unknown>(fn: F): F {
  // With no inScope yet, the scope of any code is the process's: nothing to bind.
  return running === undefined ? fn : AsyncLocalStorage.bind(fn);
}
