/**
 * The JWT signing key: JWT_PRIVATE_KEY when set, otherwise one generated on first start and
 * kept in DATA_DIR, so restarts and every server sharing that directory sign with one key.
 * A key file its group or others may read is refused, as ssh refuses such a private key:
 * whoever reads it can sign a token for any user.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from './config.js';

export const KEY_FILE = 'jwt-signing-key.pem';
/** The log's checkpoint key (LOG_PRIVATE_KEY unset), kept and refused the same way. */
export const LOG_KEY_FILE = 'log-signing-key.pem';

export async function resolveSigningKey(
  configured: string | undefined,
  dataDir: string,
  file = KEY_FILE,
  misuse = 'sign a token for any user',
): Promise<string> {
  if (configured) return configured;
  const path = join(dataDir, file);
  try {
    return await readPrivateKeyFile(path, misuse);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // Write a private temporary file, then hard-link it into place: link fails if another
  // server got there first, and nobody ever reads a half-written key.
  const temp = join(dataDir, `.${file}.${randomBytes(6).toString('hex')}`);
  await writeFile(temp, pem, { mode: 0o600 });
  try {
    await link(temp, path);
    await chmod(path, 0o600);
    return pem;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return await readPrivateKeyFile(path, misuse);
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/**
 * The file's text, if only its owner may read it; otherwise a ConfigError saying how to fix
 * it. The mode is read from the open file, so the file checked is the file read.
 */
export async function readPrivateKeyFile(path: string, misuse = 'sign a token for any user'): Promise<string> {
  const file = await open(path, 'r');
  try {
    const mode = (await file.stat()).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      const who = [mode & 0o070 ? 'its group' : '', mode & 0o007 ? 'everyone' : ''].filter(Boolean).join(' and ');
      throw new ConfigError(
        `The signing key ${path} is open to ${who} (mode ${mode.toString(8).padStart(4, '0')}): whoever can read ` +
          `it can ${misuse}. Make it private (chmod 600 ${path}) and start again; if others may ` +
          'have read it already, replace it instead (delete it to have a new one generated: every token signed ' +
          'with the old key then stops working).',
      );
    }
    return await file.readFile('utf8');
  } finally {
    await file.close();
  }
}
