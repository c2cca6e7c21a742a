import fs from 'node:fs';

/**
 * Open, read and close for listings of thousands of small files, without Node's argument
 * checks around each call. `fs.openSync`, `readSync` and `closeSync` are thin JavaScript
 * over Node's fs binding; in a single run V8 mostly interprets those checks (the path's
 * type and NUL bytes, the flags, the mode, the buffer, offset, length and position), and
 * for 1,000 files they cost 2.5-5 ms of CPU on Node 20, 22 and 24 beyond the system calls
 * (bench/README.md): as much as the rest of `list --json` costs beyond a bare script.
 *
 * The binding is not a public interface, so it is called only where this Node's own
 * wrapper calls it exactly as this does (its source says so), with arguments those checks
 * would pass unchanged: a string path without NUL bytes, numeric flags, a Buffer, an
 * offset, length and position in range. Anything else (another Node, a `process.binding`
 * wrapped to warn under --pending-deprecation, a permission model that refuses it) is
 * left to the public calls, which throw the same errors for the same files.
 */
export interface FileCalls {
  open(file: string, flags: number): number;
  read(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  close(fd: number): void;
}

/** The public calls: what every file goes through where the binding is not taken. */
export const publicFileCalls: FileCalls = {
  open: (file, flags) => fs.openSync(file, flags),
  read: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
  close: (fd) => fs.closeSync(fd),
};

/**
 * The calls Node 20.20, 22.23 and 24.22 make, as their sources lay them out (Node releases
 * from before late 2023 passed a context object for the error, and are not matched; nor
 * is any other layout): `openSync`'s path is checked and made a namespaced path (a no-op
 * outside Windows) before it is passed. Plain text searches: a regular expression over
 * the sources costs ten times as much at start-up.
 */
const OPEN_CALLS = ['getValidatedPath(path)', 'pathModule.toNamespacedPath(path)'].map(
  (path) => `return binding.open(\n    ${path},\n    stringToFlags(flags),\n    parseFileMode(mode, 'mode', 0o666),\n  );\n}`,
);
const READ_CALL = '  return binding.read(fd, buffer, offset, length, position);\n}';
const CLOSE_CALL = 'function closeSync(fd) {\n  binding.close(fd);\n}';

export interface FsBinding {
  open(path: string, flags: number, mode: number): number;
  read(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  close(fd: number): void;
}

/** Whether this Node's wrappers call the binding as `bindingCalls` does. */
export function wrappersMatch(wrappers: { openSync: unknown; readSync: unknown; closeSync: unknown }): boolean {
  const open = String(wrappers.openSync);
  return (
    OPEN_CALLS.some((call) => open.endsWith(call)) &&
    String(wrappers.readSync).endsWith(READ_CALL) &&
    String(wrappers.closeSync) === CLOSE_CALL
  );
}

/** The binding's calls, given arguments the public checks would pass unchanged. */
export function bindingCalls(binding: FsBinding): FileCalls {
  return {
    // A NUL byte is refused by the public check (ERR_INVALID_ARG_VALUE): it still is.
    open: (file, flags) => (file.includes('\0') ? fs.openSync(file, flags) : binding.open(file, flags, 0o666)),
    read: (fd, buffer, offset, length, position) =>
      length > 0 && offset >= 0 && position >= 0 && offset + length <= buffer.length
        ? binding.read(fd, buffer, offset, length, position)
        : fs.readSync(fd, buffer, offset, length, position),
    close: (fd) => binding.close(fd),
  };
}

/**
 * This Node's fs binding as file calls, where its wrappers call it as these do; else the
 * public calls. Only Node's own `process.binding` is asked: under --pending-deprecation
 * (however set) Node puts one that warns in its place.
 */
export function nodeFileCalls(): FileCalls {
  try {
    const binding = (process as { binding?: ((name: string) => Partial<FsBinding>) | undefined }).binding;
    if (binding?.name !== 'binding' || !wrappersMatch(fs)) return publicFileCalls;
    const fsBinding = binding('fs');
    const usable = typeof fsBinding?.open === 'function' && typeof fsBinding.read === 'function' && typeof fsBinding.close === 'function';
    return usable ? bindingCalls(fsBinding as FsBinding) : publicFileCalls;
  } catch {
    // the permission model refuses process.binding: the public calls it is
    return publicFileCalls;
  }
}

let chosen: FileCalls | undefined;
/** The calls a listing uses, chosen at the first file. */
export const fileCalls = (): FileCalls => (chosen ??= nodeFileCalls());
