// Loaded with `node --import` by tests: appends every module the program loads to the
// file named by $TRACE_IMPORTS_FILE, one a line: ES modules by URL (through module
// hooks), CommonJS modules by path (through the CommonJS loader), to check what a code
// path loads.
import fs from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.TRACE_IMPORTS_FILE;
register(new URL('./trace-imports-hooks.mjs', import.meta.url), { data: { file } });

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const resolved = resolveFilename.call(this, request, ...rest);
  if (file) fs.appendFileSync(file, `${resolved}\n`);
  return resolved;
};
