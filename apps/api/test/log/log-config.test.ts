/**
 * LOG_ORIGIN and LOG_PRIVATE_KEY (CONTRACT.md, Version 4): the origin's default from SIGN_IN_DOMAIN,
 * the verifier key served for a configured key (computed here with node:crypto from the C2SP
 * signed-note rules, not by the code under test), the generated key kept in DATA_DIR with mode 0600
 * and reused by the next start, and refusals of a wrong key or origin.
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/index.js';
import { startApi } from '../harness.js';
import { fetchCheckpoint, fetchVerifierKey } from './log-support.js';

/** C2SP signed-note: `<name>+<hex of SHA-256(name ‖ "\n" ‖ 0x01 ‖ key)[:4]>+<base64(0x01 ‖ key)>`. */
function expectedVerifierKey(name: string, privatePem: string): string {
  const raw = createPublicKey(privatePem).export({ format: 'der', type: 'spki' }).subarray(-32);
  const keyBytes = Buffer.concat([Buffer.from([0x01]), raw]);
  const hash = createHash('sha256').update(`${name}\n`).update(keyBytes).digest().subarray(0, 4).toString('hex');
  return `${name}+${hash}+${keyBytes.toString('base64')}`;
}

const pem = (type: 'ed25519' | 'ec') =>
  (type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519')).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();

describe('the log key and origin', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('names the log after the first SIGN_IN_DOMAIN, and signs with LOG_PRIVATE_KEY', async () => {
    const key = pem('ed25519');
    const api = await startApi('postgres', {
      env: { SIGN_IN_DOMAIN: 'app.example.com:8443,other.example.com', LOG_PRIVATE_KEY: key.replace(/\n/g, '\\n') },
    });
    try {
      const served = await fetchVerifierKey(api.url);
      expect(served).toBe(expectedVerifierKey('app.example.com:8443/signals', key));
      expect((await fetchCheckpoint(api.url, served)).origin).toBe('app.example.com:8443/signals');
    } finally {
      await api.stop();
    }
  });

  it('generates the key once into DATA_DIR (mode 0600) and signs with it again after a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'signal-log-key-'));
    dirs.push(dataDir);
    const api = await startApi('postgres', { dataDir });
    try {
      const first = await fetchVerifierKey(api.url);
      expect(first.startsWith('localhost/signals+')).toBe(true);
      expect((await stat(join(dataDir, 'log-signing-key.pem'))).mode & 0o777).toBe(0o600);
      await api.restart();
      expect(await fetchVerifierKey(api.url)).toBe(first);
      await fetchCheckpoint(api.url, first);
    } finally {
      await api.stop();
    }
  });

  it('refuses a LOG_PRIVATE_KEY that is not Ed25519, and an origin with a space or a +', async () => {
    await expect(startApi('postgres', { env: { LOG_PRIVATE_KEY: pem('ec') } })).rejects.toThrow(
      /LOG_PRIVATE_KEY: must be an Ed25519 private key/,
    );
    for (const origin of ['log example', 'log+example']) {
      expect(() => loadConfig({ LOG_ORIGIN: origin })).toThrow(/LOG_ORIGIN/);
    }
    expect(loadConfig({ LOG_ORIGIN: 'log.example.com/v1' }).logOrigin).toBe('log.example.com/v1');
  });
});
