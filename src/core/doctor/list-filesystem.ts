import fs from 'node:fs';

/**
 * The network filesystems a list folder may be on, by the type statfs(2) gives (the
 * magic numbers of Linux's statfs.h; on macOS Node gives other numbers and none match).
 * Agents on several machines can share a list there: their locks are mkdir and rename,
 * which these keep atomic; but a lock counts as stale by its age, read against each
 * machine's own clock, so the machines' clocks must agree.
 */
const NETWORK_FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x01021997, '9p'],
  [0x00c36400, 'ceph'],
  [0x47504653, 'gpfs'],
  [0x0bd00bd0, 'lustre'],
  [0x5346414f, 'afs'],
  [0x6b414653, 'afs'],
  [0x73757245, 'coda'],
  [0x013111a8, 'ibrix'],
  [0x65735546, 'fuse (sshfs, a cloud drive, or another)'],
]);

/** The statfs type of a folder, or undefined when it cannot be read (a missing folder). */
export type StatfsType = (dir: string) => number | undefined;

const systemStatfs: StatfsType = (dir) => {
  try {
    return Number(fs.statfsSync(dir).type);
  } catch {
    return undefined;
  }
};

/** The network filesystem `dir` is on, by name; undefined for a local one or when unknown. */
export function networkFilesystemOf(dir: string, statfs: StatfsType = systemStatfs): string | undefined {
  const type = statfs(dir);
  return type === undefined ? undefined : NETWORK_FILESYSTEMS.get(type >>> 0);
}
