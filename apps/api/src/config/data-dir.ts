/**
 * DATA_DIR holds the signing key and the embedded database: whoever can write there can sign
 * tokens or rewrite the data, and whoever can read there can read both. So it is created private
 * (0700), a directory others may write to is refused at start, and what the service keeps in it
 * is made owner-only (directories 0700, files 0600).
 */
import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from './config.js';

/** Creates DATA_DIR 0700 if it is missing; refuses one that group or others may write to. */
export async function prepareDataDir(dir: string): Promise<void> {
  let mode: number;
  try {
    const stats = await stat(dir);
    if (!stats.isDirectory()) throw new ConfigError(`DATA_DIR ${dir} is not a directory`);
    mode = stats.mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    return;
  }
  if ((mode & 0o022) !== 0) {
    const who = [mode & 0o020 ? 'its group' : '', mode & 0o002 ? 'everyone' : ''].filter(Boolean).join(' and ');
    throw new ConfigError(
      `DATA_DIR ${dir} is writable by ${who} (mode ${mode.toString(8).padStart(4, '0')}): anyone who can write ` +
        `there can replace the signing key or the database. Make it private (chmod 700 ${dir}) or set DATA_DIR ` +
        'to a directory only this user can write.',
    );
  }
}

/**
 * Makes a tree owner-only: directories 0700, files 0600. PGlite creates its files 0666
 * whatever the umask; this runs over them at start and at stop (files it adds meanwhile sit
 * in a directory no one else can enter).
 */
export async function restrictToOwner(dir: string): Promise<void> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await chmod(dir, 0o700);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await restrictToOwner(path);
    else if (entry.isFile()) await chmod(path, 0o600);
  }
}
