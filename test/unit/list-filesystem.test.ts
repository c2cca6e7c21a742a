import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { networkFilesystemOf } from '../../src/core/doctor/list-filesystem.js';

describe('the network filesystem a list is on (doctor)', () => {
  it('names NFS, SMB and FUSE by their statfs type, and nothing for a local disk or a folder it cannot read', () => {
    const of = (type: number | undefined) => networkFilesystemOf('/some/list', () => type);
    expect(of(0x6969)).toBe('nfs');
    expect(of(0xfe534d42)).toBe('smb2');
    // Some platforms give the type as a signed 32-bit number.
    expect(of(0xfe534d42 | 0)).toBe('smb2');
    expect(of(0x65735546)).toMatch(/^fuse/);
    expect(of(0xef53)).toBeUndefined(); // ext4
    expect(of(0x01021994)).toBeUndefined(); // tmpfs
    expect(of(undefined)).toBeUndefined();
  });

  it('reads the real type of a local folder as not a network one', () => {
    expect(networkFilesystemOf(os.tmpdir())).toBeUndefined();
  });
});
