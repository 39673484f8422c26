// Reads a skill file at request time, only if it is still the file the catalog listed: same inode, size and digest.

import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import { digestOf, NO_FOLLOW, type SkillFile } from './catalog';

/**
 * The bytes of `file` if they are the ones listed at boot, else undefined. Read at request time (not kept in memory),
 * so a catalog costs its metadata only; what is served must still match the digest in skills/list (SEP-2640: a host
 * MUST NOT use content that fails its digest), so the read is checked against the boot-time record:
 *
 * - opened with O_NOFOLLOW: a symlink put in the file's place is refused;
 * - the open file's device and inode are the ones walked at boot: a folder swapped for a link to elsewhere after boot
 *   (a path that escapes the folder) opens another inode and is refused;
 * - the size is the listed one (no more is read: memory is bounded by `maxFileBytes`), and so is the digest.
 */
export async function readListedFile(file: SkillFile): Promise<Uint8Array | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file.path, constants.O_RDONLY | NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.dev !== file.dev || stat.ino !== file.ino || stat.size !== file.size) return undefined;
    const bytes = Buffer.alloc(file.size);
    let filled = 0;
    while (filled < file.size) {
      const { bytesRead } = await handle.read(bytes, filled, file.size - filled, filled);
      if (bytesRead === 0) return undefined;
      filled += bytesRead;
    }
    return digestOf(bytes) === file.digest ? bytes : undefined;
  } finally {
    await handle.close();
  }
}
