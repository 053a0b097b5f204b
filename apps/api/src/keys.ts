/**
 * The JWT signing key: JWT_PRIVATE_KEY when set, otherwise one generated on first start and
 * kept in DATA_DIR, so restarts and every server sharing that directory sign with one key.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const KEY_FILE = 'jwt-signing-key.pem';

export async function resolveSigningKey(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const path = join(dataDir, KEY_FILE);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // Write a private temporary file, then hard-link it into place: link fails if another
  // server got there first, and nobody ever reads a half-written key.
  const temp = join(dataDir, `.${KEY_FILE}.${randomBytes(6).toString('hex')}`);
  await writeFile(temp, pem, { mode: 0o600 });
  try {
    await link(temp, path);
    await chmod(path, 0o600);
    return pem;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return await readFile(path, 'utf8');
  } finally {
    await unlink(temp).catch(() => {});
  }
}
