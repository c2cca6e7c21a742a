/**
 * Set `key` on a plain object as its own, enumerable key, whatever the key is.
 * `obj[key] = value` with `key` "__proto__" sets the object's prototype instead, so a
 * "__proto__" key read from JSON (where it is an ordinary key) would vanish on rewrite.
 * Every object built from keys that come from files or flags is built with this.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
