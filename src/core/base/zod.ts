import { createRequire } from 'node:module';
import type { z as Z } from 'zod';

export type Zod = typeof Z;

let loaded: Zod | undefined;

/**
 * zod, loaded the first time a schema is needed rather than with the modules that
 * define schemas: most runs never validate with zod (task files pass a cheap check
 * first; settings, teams and imports are read only by some commands), and loading it
 * and building the schemas costs every run about 5 ms of start-up.
 *
 * In the CLI bundle, `require` is the bundle's own (esbuild bundles zod and runs it
 * here on first call); in the unbundled ES modules, Node's, made for this file.
 *
 * Its v3 API, on purpose: the same schema and one bad value, bundled with esbuild, cost
 * 14 ms of CPU to load and run with it against 55 ms with zod/v4 and 58 ms with
 * zod/v4-mini (Node 20), and its messages are the ones users and scripts read. The v4
 * API of the same package serves only the JSON contract, at build and test time
 * (render/json-schemas, whose task is held to this store's Task by a type check).
 */
export function zod(): Zod {
  loaded ??= ((typeof require === 'function' ? require('zod') : createRequire(import.meta.url)('zod')) as typeof import('zod')).z;
  return loaded;
}

/** Schemas built on first use (with zod loaded on first use): `const schemas = lazySchemas((z) => ({...}))`. */
export function lazySchemas<T>(build: (z: Zod) => T): () => T {
  let built: T | undefined;
  return () => (built ??= build(zod()));
}
