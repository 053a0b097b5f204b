import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { bytesToHex, type Hex, hexToBytes } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAuthMessage } from '../src/message.js';
import { verifyEvmSignature, verifySolanaSignature, verifyWalletSignature } from '../src/verify.js';
import { parseWallet } from '../src/wallet.js';
import { freshNonce } from './support.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

function solanaSign(keyPair: nacl.SignKeyPair, message: string): string {
  return bs58.encode(nacl.sign.detached(utf8(message), keyPair.secretKey));
}

describe('verifyEvmSignature', () => {
  let signer: PrivateKeyAccount;
  let other: PrivateKeyAccount;
  let message: string;
  let signature: Hex;

  beforeAll(async () => {
    signer = privateKeyToAccount(generatePrivateKey());
    other = privateKeyToAccount(generatePrivateKey());
    message = buildAuthMessage(freshNonce());
    signature = await signer.signMessage({ message });
  });

  it('accepts the right signer', () => {
    expect(verifyEvmSignature(signer.address, message, signature)).toBe(true);
  });

  it('accepts the signature without its 0x prefix', () => {
    expect(verifyEvmSignature(signer.address, message, signature.slice(2))).toBe(true);
  });

  it('accepts uppercase hex digits', () => {
    expect(verifyEvmSignature(signer.address, message, `0x${signature.slice(2).toUpperCase()}`)).toBe(true);
  });

  it('accepts v as 0/1 as well as 27/28', () => {
    const bytes = hexToBytes(signature);
    bytes[64] = (bytes[64] as number) - 27;
    expect(bytes[64]).toBeLessThanOrEqual(1);
    expect(verifyEvmSignature(signer.address, message, bytesToHex(bytes))).toBe(true);
  });

  it('accepts a signature by a lowercase (non-canonical) address too', () => {
    expect(verifyEvmSignature(signer.address.toLowerCase(), message, signature)).toBe(true);
  });

  it('rejects a signature by another key', async () => {
    const otherSignature = await other.signMessage({ message });
    expect(verifyEvmSignature(signer.address, message, otherSignature)).toBe(false);
    expect(verifyEvmSignature(other.address, message, otherSignature)).toBe(true);
  });

  it('rejects another nonce / message', () => {
    expect(verifyEvmSignature(signer.address, buildAuthMessage(freshNonce()), signature)).toBe(false);
    expect(verifyEvmSignature(signer.address, `${message} `, signature)).toBe(false);
    expect(verifyEvmSignature(signer.address, message.slice(0, -1), signature)).toBe(false);
  });

  it('rejects another wallet', () => {
    expect(verifyEvmSignature(other.address, message, signature)).toBe(false);
  });

  it('rejects a truncated signature', () => {
    expect(verifyEvmSignature(signer.address, message, signature.slice(0, -4))).toBe(false);
    expect(verifyEvmSignature(signer.address, message, signature.slice(0, -1))).toBe(false);
    // r ‖ s with v dropped is read as EIP-2098's compact form (verify.wallets.test.ts): it
    // verifies exactly when the parity it then implies (the top bit of s, always 0 for a low s)
    // is the signature's own.
    expect(verifyEvmSignature(signer.address, message, signature.slice(0, 130))).toBe(signature.endsWith('1b'));
  });

  it('rejects extra bytes', () => {
    expect(verifyEvmSignature(signer.address, message, `${signature}00`)).toBe(false);
    expect(verifyEvmSignature(signer.address, message, `${signature}0`)).toBe(false);
    // v as two bytes 0x001b would still read as 27 if the length were not pinned to 65 bytes.
    expect(verifyEvmSignature(signer.address, message, `${signature.slice(0, 130)}00${signature.slice(130)}`)).toBe(
      false,
    );
  });

  it('rejects the wrong encoding (base58 or base64 of the same bytes)', () => {
    const bytes = hexToBytes(signature);
    expect(verifyEvmSignature(signer.address, message, bs58.encode(bytes))).toBe(false);
    expect(verifyEvmSignature(signer.address, message, Buffer.from(bytes).toString('base64'))).toBe(false);
    expect(verifyEvmSignature(signer.address, message, `0X${signature.slice(2)}`)).toBe(false);
    expect(verifyEvmSignature(signer.address, message, ` ${signature}`)).toBe(false);
  });

  it('rejects the empty string and a bare 0x', () => {
    expect(verifyEvmSignature(signer.address, message, '')).toBe(false);
    expect(verifyEvmSignature(signer.address, message, '0x')).toBe(false);
  });

  it('rejects a Solana signature', () => {
    const solana = solanaSign(nacl.sign.keyPair(), message);
    expect(verifyEvmSignature(signer.address, message, solana)).toBe(false);
  });
});

describe('verifySolanaSignature', () => {
  const signer = nacl.sign.keyPair();
  const other = nacl.sign.keyPair();
  const address = bs58.encode(signer.publicKey);
  const message = buildAuthMessage(freshNonce());
  const signature = solanaSign(signer, message);

  it('accepts the right signer', () => {
    expect(verifySolanaSignature(address, message, signature)).toBe(true);
    // Twice, so the cached key path is exercised too.
    expect(verifySolanaSignature(address, message, signature)).toBe(true);
  });

  it('signs the UTF-8 bytes of non-ASCII messages', () => {
    const text = 'Sign this message to authenticate: ünïcødé 🚀';
    expect(verifySolanaSignature(address, text, solanaSign(signer, text))).toBe(true);
  });

  it('rejects a signature by another key', () => {
    expect(verifySolanaSignature(address, message, solanaSign(other, message))).toBe(false);
  });

  it('rejects another nonce / message', () => {
    expect(verifySolanaSignature(address, buildAuthMessage(freshNonce()), signature)).toBe(false);
    expect(verifySolanaSignature(address, `${message} `, signature)).toBe(false);
  });

  it('rejects another wallet', () => {
    expect(verifySolanaSignature(bs58.encode(other.publicKey), message, signature)).toBe(false);
  });

  it('rejects a truncated signature', () => {
    const bytes = bs58.decode(signature);
    expect(verifySolanaSignature(address, message, bs58.encode(bytes.subarray(0, 63)))).toBe(false);
    expect(verifySolanaSignature(address, message, bs58.encode(bytes.subarray(0, 32)))).toBe(false);
    expect(verifySolanaSignature(address, message, signature.slice(0, -1))).toBe(false);
  });

  it('rejects extra bytes', () => {
    const bytes = bs58.decode(signature);
    const longer = new Uint8Array(65);
    longer.set(bytes);
    expect(verifySolanaSignature(address, message, bs58.encode(longer))).toBe(false);
    const prefixed = new Uint8Array(65);
    prefixed.set(bytes, 1);
    expect(verifySolanaSignature(address, message, bs58.encode(prefixed))).toBe(false);
    expect(verifySolanaSignature(address, message, `${signature}1`)).toBe(false);
  });

  it('rejects the wrong encoding (hex or base64 of the same bytes)', () => {
    const bytes = bs58.decode(signature);
    expect(verifySolanaSignature(address, message, Buffer.from(bytes).toString('hex'))).toBe(false);
    expect(verifySolanaSignature(address, message, `0x${Buffer.from(bytes).toString('hex')}`)).toBe(false);
    expect(verifySolanaSignature(address, message, Buffer.from(bytes).toString('base64'))).toBe(false);
    expect(verifySolanaSignature(address, message, ` ${signature}`)).toBe(false);
  });

  it('rejects the empty string', () => {
    expect(verifySolanaSignature(address, message, '')).toBe(false);
  });

  it('rejects very long input without decoding it', () => {
    expect(verifySolanaSignature(address, message, '2'.repeat(100_000))).toBe(false);
  });

  it('rejects an EVM signature', async () => {
    const evm = await privateKeyToAccount(generatePrivateKey()).signMessage({ message });
    expect(verifySolanaSignature(address, message, evm)).toBe(false);
    expect(verifySolanaSignature(address, message, evm.slice(2))).toBe(false);
  });

  it('answers false, not an exception, for an address that is not a valid key', () => {
    expect(verifySolanaSignature('1'.repeat(31), message, signature)).toBe(false);
    expect(verifySolanaSignature(bs58.encode(new Uint8Array(32).fill(255)), message, signature)).toBe(false);
  });
});

describe('verifyWalletSignature', () => {
  let evmAccount: PrivateKeyAccount;
  let evmSignature: Hex;
  const solanaKey = nacl.sign.keyPair();
  const message = buildAuthMessage(freshNonce());
  const solanaSignature = solanaSign(solanaKey, message);

  beforeAll(async () => {
    evmAccount = privateKeyToAccount(generatePrivateKey());
    evmSignature = await evmAccount.signMessage({ message });
  });

  it('dispatches on the chain of the parsed wallet', () => {
    const evm = parseWallet(evmAccount.address.toLowerCase());
    const solana = parseWallet(bs58.encode(solanaKey.publicKey));
    expect(verifyWalletSignature(evm, message, evmSignature)).toBe(true);
    expect(verifyWalletSignature(evm, message, evmSignature.slice(2))).toBe(true);
    expect(verifyWalletSignature(solana, message, solanaSignature)).toBe(true);
  });

  it('rejects an EVM signature sent for a Solana wallet and vice versa', () => {
    const evm = parseWallet(evmAccount.address);
    const solana = parseWallet(bs58.encode(solanaKey.publicKey));
    expect(verifyWalletSignature(solana, message, evmSignature)).toBe(false);
    expect(verifyWalletSignature(solana, message, evmSignature.slice(2))).toBe(false);
    expect(verifyWalletSignature(evm, message, solanaSignature)).toBe(false);
  });

  it('rejects the empty string for both chains', () => {
    expect(verifyWalletSignature(parseWallet(evmAccount.address), message, '')).toBe(false);
    expect(verifyWalletSignature(parseWallet(bs58.encode(solanaKey.publicKey)), message, '')).toBe(false);
  });
});

describe('known vectors', () => {
  // The account of the web3.js `eth.accounts.sign` documentation; its example signature of
  // 'Some data' is reproduced by viem (RFC 6979 nonces make ECDSA deterministic).
  const EVM_PRIVATE_KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
  const EVM_ADDRESS = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
  const EVM_MESSAGE = 'Some data';
  const EVM_SIGNATURE =
    '0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c';

  it('EVM: a fixed key signing a fixed message verifies against its known address', async () => {
    const account = privateKeyToAccount(EVM_PRIVATE_KEY);
    expect(account.address).toBe(EVM_ADDRESS);
    expect(await account.signMessage({ message: EVM_MESSAGE })).toBe(EVM_SIGNATURE);
    expect(verifyEvmSignature(EVM_ADDRESS, EVM_MESSAGE, EVM_SIGNATURE)).toBe(true);
    expect(verifyWalletSignature(parseWallet(EVM_ADDRESS.toLowerCase()), EVM_MESSAGE, EVM_SIGNATURE)).toBe(true);
    expect(verifyEvmSignature(EVM_ADDRESS, 'Some data.', EVM_SIGNATURE)).toBe(false);
  });

  it('EVM: the auth message of a fixed nonce', async () => {
    const account = privateKeyToAccount(EVM_PRIVATE_KEY);
    const message = buildAuthMessage('0123456789abcdefghijABCDEFGHIJkl');
    const signature = await account.signMessage({ message });
    expect(verifyEvmSignature(EVM_ADDRESS, message, signature)).toBe(true);
  });

  // Seed of 32 bytes 0x01. ed25519 is deterministic, so the signature is fixed; the values
  // below were taken from tweetnacl and cross-checked against Node's own Ed25519 signer.
  const ED25519_SEED = new Uint8Array(32).fill(1);
  const SOLANA_ADDRESS = 'AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9';
  const SOLANA_PUBLIC_KEY_HEX = '8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c';
  const SOLANA_MESSAGE = 'Sign this message to authenticate: 0123456789abcdefghijABCDEFGHIJklmn';
  const SOLANA_SIGNATURE_HEX =
    '47566e301474568d29d2770bd20ed1c81ecdcf06062e8ade9c9167bace450540c83838f9d3afad966c2a59f7fbdb88c285777dab423b3c9432e5dfe2b4f98604';

  it('Solana: a fixed seed gives a fixed key and signature, which verify', () => {
    const keyPair = nacl.sign.keyPair.fromSeed(ED25519_SEED);
    expect(Buffer.from(keyPair.publicKey).toString('hex')).toBe(SOLANA_PUBLIC_KEY_HEX);
    expect(bs58.encode(keyPair.publicKey)).toBe(SOLANA_ADDRESS);
    const signature = nacl.sign.detached(utf8(SOLANA_MESSAGE), keyPair.secretKey);
    expect(Buffer.from(signature).toString('hex')).toBe(SOLANA_SIGNATURE_HEX);

    const encoded = bs58.encode(Buffer.from(SOLANA_SIGNATURE_HEX, 'hex'));
    expect(verifySolanaSignature(SOLANA_ADDRESS, SOLANA_MESSAGE, encoded)).toBe(true);
    expect(verifyWalletSignature(parseWallet(SOLANA_ADDRESS), SOLANA_MESSAGE, encoded)).toBe(true);
    expect(verifySolanaSignature(SOLANA_ADDRESS, `${SOLANA_MESSAGE}x`, encoded)).toBe(false);
  });
});
