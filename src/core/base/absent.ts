/**
 * A field a task's file lacks (no key), told apart from a `null` it holds: the old and
 * new values of an undo's steps use it, and views show it as missing.
 */
export const ABSENT = Symbol('absent');
