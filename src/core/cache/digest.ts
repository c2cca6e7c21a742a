import { createRequire } from 'node:module';

/**
 * A digest of what a cached answer was worked out from (SHA-1 of its parts, in order):
 * an answer kept with the digest of its inputs is used again only while the inputs give
 * the same digest. Each part is written with its kind and length, so that no two
 * sequences of parts run together into the same text.
 */
export class Digest {
  // Gathered and hashed at once: thousands of small updates cost more than one join.
  private readonly parts: string[] = [];

  add(...parts: ReadonlyArray<string | number | undefined>): this {
    for (const part of parts) {
      if (part === undefined) this.parts.push('u;');
      else if (typeof part === 'number') this.parts.push(`n${part};`);
      else this.parts.push(`s${part.length}:`, part);
    }
    return this;
  }

  hex(): string {
    return crypto().createHash('sha1').update(this.parts.join('')).digest('hex');
  }
}

/** The digest of one JSON-able value. */
export function digestOf(value: unknown): string {
  return crypto().createHash('sha1').update(JSON.stringify(value)).digest('hex');
}

/**
 * node:crypto, loaded the first time a digest is made: loading it costs a start-up that
 * most commands never need (the read bundle's `list` and `get` make none).
 */
function crypto(): typeof import('node:crypto') {
  return (
    typeof require === 'function' ? require('node:crypto') : createRequire(import.meta.url)('node:crypto')
  ) as typeof import('node:crypto');
}
