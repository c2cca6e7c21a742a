// Loaded with `node --import` by tests: appends every module URL the program resolves to
// the file named by $TRACE_IMPORTS_FILE, to check what a code path loads.
import { register } from 'node:module';

register(new URL('./trace-imports-hooks.mjs', import.meta.url), { data: { file: process.env.TRACE_IMPORTS_FILE } });
