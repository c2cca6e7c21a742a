// Module hooks for trace-imports.mjs (they run on the loader's own thread).
import fs from 'node:fs';

let file;

export function initialize(data) {
  file = data?.file;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (file) fs.appendFileSync(file, `${result.url}\n`);
  return result;
}
