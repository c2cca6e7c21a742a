import { createHash } from 'node:crypto';

/**
 * A digest of what a cached answer was worked out from (SHA-1 of its parts, in order):
 * an answer kept with the digest of its inputs is used again only while the inputs give
 * the same digest. Each part is written with its length, so that no two sequences of
 * parts run together into the same text.
 */
export class Digest {
  // Gathered as one text and hashed once: thousands of small updates cost more.
  private text = '';

  add(...parts: ReadonlyArray<string | number | undefined>): this {
    for (const part of parts) {
      const text = part === undefined ? '' : typeof part === 'number' ? `#${part}` : `'${part}`;
      this.text += `${text.length}:${text}`;
    }
    return this;
  }

  hex(): string {
    return createHash('sha1').update(this.text).digest('hex');
  }
}

/** The digest of one JSON-able value. */
export function digestOf(value: unknown): string {
  return createHash('sha1').update(JSON.stringify(value)).digest('hex');
}
