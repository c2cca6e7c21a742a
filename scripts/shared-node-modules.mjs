// An esbuild plugin for both bundles (scripts/build-cli.mjs, build-completion.mjs).
// `import fs from 'node:fs'` in each of our modules would otherwise copy every property
// of the module into a new object (esbuild's CommonJS interop), once per importing
// module, some forty times a start (about 4 ms): one shared default export instead. It
// also makes `await import('node:tty')` a lazy require, not an ES module import.
import path from 'node:path';

// node:os is loaded on first use: a read needs it only where $HOME or $USER is not set
// (os.homedir, os.userInfo), and loading it costs a start 0.4-1 ms.
const LAZY_OS = "let m; export default new Proxy({}, { get: (_, key) => (m ??= require('node:os'))[key] });";
// node:module, for createRequire, which our modules call only when they run unbundled (in a
// bundle `require` is there): loaded on that call, not when the importing module starts
// (loading it cost a read 0.3-0.8 ms, and bin/tasks.js no longer loads it either).
const LAZY_MODULE = "export function createRequire(url) { return require('node:module').createRequire(url); }";

export function sharedNodeModules(ourCode) {
  const prefix = ourCode.endsWith(path.sep) ? ourCode : ourCode + path.sep;
  return {
    name: 'shared-node-modules',
    setup(b) {
      b.onResolve({ filter: /^node:module$/ }, (args) =>
        args.importer.startsWith(prefix) ? { path: args.path, namespace: 'node-lazy-module' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'node-lazy-module' }, () => ({ contents: LAZY_MODULE, loader: 'js' }));
      b.onResolve({ filter: /^node:(fs|path|os|tty)$/ }, (args) =>
        args.importer.startsWith(prefix) ? { path: args.path, namespace: 'node-default' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'node-default' }, (args) => ({
        contents: args.path === 'node:os' ? LAZY_OS : `const m = require(${JSON.stringify(args.path)}); export default m;`,
        loader: 'js',
      }));
    },
  };
}
