/**
 * The sign-in texts against the reference implementations: viem's createSiweMessage /
 * parseSiweMessage / validateSiweMessage for SIWE (EIP-4361), and the Wallet Standard's
 * createSignInMessageText / parseSignInMessageText (@solana/wallet-standard-util) for SIWS.
 */
import { createSignInMessageText, parseSignInMessageText } from '@solana/wallet-standard-util';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import {
  buildSignInMessage,
  defaultSignInUri,
  isSignInDomain,
  parseSignInMessage,
  type SignInFields,
} from '../src/sign-in-message.js';

const issuedAt = new Date('2026-11-23T10:00:00.123Z');
const expiresAt = new Date('2026-11-23T10:05:00.123Z');
const statement = 'Sign in to Signal. This request will not trigger a blockchain transaction or cost any fees.';
/** The fields both families' messages share here: the site, the nonce and the times. */
const site = {
  domain: 'app.example.com',
  statement,
  uri: 'https://app.example.com',
  nonce: 'q3J9cX0pV7bT1mZk4rN8sW2aYh6uLdEf',
  issuedAt,
  expiresAt,
};

describe('SIWE (EIP-4361) against viem', () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const fields: SignInFields = { ...site, address: account.address, chainId: '8453' };

  it('is exactly the text viem creates, and viem parses and validates it', () => {
    const text = buildSignInMessage('siwe', fields);
    const reference = createSiweMessage({
      domain: fields.domain,
      address: account.address,
      statement,
      uri: fields.uri,
      version: '1',
      chainId: 8453,
      nonce: fields.nonce,
      issuedAt,
      expirationTime: expiresAt,
    });
    expect(text).toBe(reference);
    const parsed = parseSiweMessage(text);
    expect(parsed).toMatchObject({
      domain: fields.domain,
      address: account.address,
      chainId: 8453,
      nonce: fields.nonce,
    });
    expect(
      validateSiweMessage({
        message: parsed,
        domain: 'app.example.com',
        nonce: fields.nonce,
        time: new Date(issuedAt.getTime() + 1000),
      }),
    ).toBe(true);
    expect(validateSiweMessage({ message: parsed, domain: 'evil.example', time: issuedAt })).toBe(false);
  });

  it('with a port and an http localhost URI, as viem writes it', () => {
    const local = { ...fields, domain: 'localhost:3000', uri: defaultSignInUri('localhost:3000') };
    expect(local.uri).toBe('http://localhost:3000');
    expect(buildSignInMessage('siwe', local)).toBe(
      createSiweMessage({ ...local, chainId: 8453, version: '1', expirationTime: expiresAt, address: account.address }),
    );
  });

  it('parses back to the same fields; anything else is refused', () => {
    const text = buildSignInMessage('siwe', fields);
    expect(parseSignInMessage(text)).toEqual({ format: 'siwe', ...fields });
    expect(parseSignInMessage(`${text}\n`)).toBeNull();
    expect(parseSignInMessage(`${text}\nResources:\n- https://evil.example`)).toBeNull();
    expect(parseSignInMessage(text.replace('Version: 1', 'Version: 2'))).toBeNull();
    expect(parseSignInMessage(text.replace('Nonce: q3J9', 'Nonce: q3-9'))).toBeNull();
    expect(parseSignInMessage(text.replace('.123Z', 'Z'))).toBeNull();
    expect(parseSignInMessage('Sign this message to authenticate: abc')).toBeNull();
  });
});

describe('SIWS against the Wallet Standard (@solana/wallet-standard-util)', () => {
  const address = bs58.encode(nacl.sign.keyPair().publicKey);
  const fields: SignInFields = { ...site, address, chainId: 'mainnet' };

  it('is exactly the text createSignInMessageText writes, and parseSignInMessageText reads it back', () => {
    const text = buildSignInMessage('siws', fields);
    const input = {
      domain: fields.domain,
      address,
      statement,
      uri: fields.uri,
      version: '1',
      chainId: 'mainnet',
      nonce: fields.nonce,
      issuedAt: issuedAt.toISOString(),
      expirationTime: expiresAt.toISOString(),
    };
    expect(text).toBe(createSignInMessageText(input));
    expect(parseSignInMessageText(text)).toMatchObject(input);
    expect(parseSignInMessage(text)).toEqual({ format: 'siws', ...fields });
  });
});

describe('domains and URIs', () => {
  it('accepts host[:port] only', () => {
    for (const ok of [
      'example.com',
      'app.example.com:8443',
      'localhost',
      '127.0.0.1:3000',
      '[::1]:3000',
      'a-b.c',
      'a.b:65535',
      '[::1]',
    ])
      expect(isSignInDomain(ok), ok).toBe(true);
    for (const bad of [
      '',
      'https://example.com',
      'example.com/path',
      'ex ample.com',
      'example.com\nURI: x',
      '-a.com',
      'a..b',
      `${'a'.repeat(254)}`,
      'example.com:0',
      'example.com:65536',
      'example.com:99999',
      '[::1]:0',
    ])
      expect(isSignInDomain(bad), bad).toBe(false);
  });

  it('defaults to https, http for the local machine', () => {
    expect(defaultSignInUri('app.example.com')).toBe('https://app.example.com');
    expect(defaultSignInUri('localhost:5173')).toBe('http://localhost:5173');
    expect(defaultSignInUri('127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(defaultSignInUri('[::1]')).toBe('http://[::1]');
  });
});
