/**
 * The log's name and signing key (CONTRACT.md, Version 4: LOG_ORIGIN, LOG_PRIVATE_KEY). The key is
 * LOG_PRIVATE_KEY when set, otherwise one generated once into DATA_DIR and kept there like the JWT
 * key (keys.ts): servers sharing a database must share it (docs/log.md, "Sequencing").
 */
import { createPrivateKey } from 'node:crypto';
import { type NoteSigner, noteSigner } from '@signal/core/log';
import type { Config } from './config.js';
import { ConfigError } from './config.js';
import { LOG_KEY_FILE, resolveSigningKey } from './keys.js';

/** LOG_ORIGIN, else the first SIGN_IN_DOMAIN + `/signals`, else `localhost/signals`. */
export function logOrigin(config: Pick<Config, 'logOrigin' | 'signInDomains'>): string {
  if (config.logOrigin) return config.logOrigin;
  const domain = config.signInDomains[0];
  return domain ? `${domain}/signals` : 'localhost/signals';
}

/** The note signer of the log's checkpoints: named after the origin, with the Ed25519 key. */
export async function resolveLogSigner(config: Config): Promise<NoteSigner> {
  const pem = await resolveSigningKey(
    config.logPrivateKey,
    config.dataDir,
    LOG_KEY_FILE,
    "sign the log's checkpoints (and show readers a history of its own)",
  );
  let seed: Buffer;
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`a ${key.asymmetricKeyType} key`);
    seed = Buffer.from(key.export({ format: 'jwk' }).d as string, 'base64url');
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: LOG_PRIVATE_KEY: must be an Ed25519 private key in PKCS#8 PEM (${(error as Error).message})`,
    );
  }
  return noteSigner(logOrigin(config), new Uint8Array(seed));
}
