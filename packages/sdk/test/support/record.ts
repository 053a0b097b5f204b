/**
 * A provider's record written by hand for the audit's tests: the log entries (canonical JSON
 * written here, keys in sorted order, commitments with node:crypto) and the signals as the reads
 * answer them, for statements really signed by viem accounts, Solana keypairs (tweetnacl) and
 * delegated Ed25519 keys. An honest operator's record, or a lying one's: `append` takes any
 * statement, allowed or not, so a test can write what an operator who skips the checks would.
 */
import { createHash } from 'node:crypto';
import type { AuditedSignal as Signal } from '@signal/sdk/audit';
import {
  closeStatement,
  delegateKeyStatement,
  ed25519StatementSigner,
  generateEd25519Key,
  openStatement,
  revokeKeyStatement,
  type SignalTerms,
  type StatementBody,
  updateStatement,
} from '@signal/sdk/statements';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export const ORIGIN = 'localhost/signals';

export interface TestSigner {
  kind: 'evm' | 'solana' | 'ed25519';
  id: string;
  sign(statement: string): Promise<string>;
}

export function evmWallet(): TestSigner {
  const account = privateKeyToAccount(generatePrivateKey());
  return { kind: 'evm', id: account.address, sign: (message) => account.signMessage({ message }) };
}

export function solanaWallet(): TestSigner {
  const keypair = Keypair.generate();
  return {
    kind: 'solana',
    id: keypair.publicKey.toBase58(),
    sign: async (message) => bs58.encode(nacl.sign.detached(new TextEncoder().encode(message), keypair.secretKey)),
  };
}

export async function delegatedKey(): Promise<TestSigner> {
  const key = await generateEd25519Key();
  const signer = ed25519StatementSigner(key.secretKey);
  return { kind: 'ed25519', id: key.key, sign: (message) => signer.sign(message) };
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const json = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));

type View = Signal['statements'][number];

/** Every open's terms. */
const TERMS = {
  instrument: 'BTC-USD',
  side: 'long',
  entry: { type: 'market' },
  stop: '90000',
  targets: ['110000'],
  sizePct: '5',
  expiresAt: null,
} satisfies SignalTerms;

/** The record of one provider (several can share `entries`, as they share a log). */
export class ProviderRecord {
  /** The server's clock: every entry moves it on by one second. */
  clock: number;
  readonly signals = new Map<string, { signal: Signal; statements: View[] }>();

  constructor(
    readonly entries: Uint8Array[],
    readonly provider: number,
    start = Date.parse('2026-01-01T00:00:00.000Z'),
    readonly revealDelayMs = 0,
    readonly origin = ORIGIN,
  ) {
    this.clock = start;
  }

  private tick(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  private push(entry: Record<string, unknown>): number {
    this.entries.push(new TextEncoder().encode(json(entry)));
    return this.entries.length - 1;
  }

  scope() {
    return { log: this.origin, provider: this.provider, issuedAt: new Date(this.clock) };
  }

  addPublisher(wallet: string, at = this.tick()): number {
    return this.push({ at, provider: this.provider, type: 'publisher.added', v: 1, wallet });
  }

  removePublisher(wallet: string, at = this.tick()): number {
    return this.push({ at, provider: this.provider, type: 'publisher.removed', v: 1, wallet });
  }

  async keyStatement(type: 'key.delegate' | 'key.revoke', statement: string, signer: TestSigner): Promise<number> {
    return this.push({
      provider: this.provider,
      receivedAt: this.tick(),
      signature: await signer.sign(statement),
      signer: signer.id,
      statement,
      type,
      v: 1,
    });
  }

  delegate(wallet: TestSigner, key: TestSigner, lifetimeMs = 30 * 86_400_000): Promise<number> {
    const built = delegateKeyStatement(this.scope(), key.id, new Date(this.clock + lifetimeMs));
    return this.keyStatement('key.delegate', built.statement, wallet);
  }

  revoke(signer: TestSigner, key: TestSigner): Promise<number> {
    return this.keyStatement('key.revoke', revokeKeyStatement(this.scope(), key.id).statement, signer);
  }

  /** Appends a signed signal statement (of signal `signal`) and shows it in the signal. */
  async append(type: View['type'], signal: string, statement: string, signer: TestSigner): Promise<View> {
    const body: StatementBody = { statement, signer: signer.id, signature: await signer.sign(statement) };
    const receivedAt = this.tick();
    const commitment = sha256(statement);
    const logIndex = this.push({ commitment, provider: this.provider, receivedAt, signal, type, v: 1 });
    const view: View = { logIndex, type, receivedAt, commitment, ...body };
    let held = this.signals.get(signal);
    if (!held) {
      held = {
        statements: [],
        signal: {
          id: signal,
          providerId: this.provider,
          status: 'open',
          publishedAt: receivedAt,
          revealAt: new Date(this.clock + this.revealDelayMs).toISOString(),
          content: null,
          statements: [],
        },
      };
      this.signals.set(signal, held);
    }
    held.statements.push(view);
    return view;
  }

  async open(signer: TestSigner, options: { id?: string } = {}): Promise<string> {
    const built = openStatement(this.scope(), TERMS, options);
    await this.append('signal.open', built.id!, built.statement, signer);
    return built.id!;
  }

  async update(signer: TestSigner, signal: string): Promise<View> {
    return this.append(
      'signal.update',
      signal,
      updateStatement(this.scope(), signal, { stop: '95000' }).statement,
      signer,
    );
  }

  async close(signer: TestSigner, signal: string, closePct = '100'): Promise<View> {
    return this.append('signal.close', signal, closeStatement(this.scope(), signal, closePct).statement, signer);
  }

  /**
   * The signal as a reader sees it at `now`: content and statements once revealAt has passed
   * (or always, with `reader: 'follower'`), commitments only before.
   */
  signal(id: string, now = new Date(this.clock), reader: 'public' | 'follower' = 'public'): Signal {
    const held = this.signals.get(id);
    if (!held) throw new Error(`no signal ${id}`);
    const revealed = reader === 'follower' || Date.parse(held.signal.revealAt) <= now.getTime();
    const { content, status } = contentOf(held.statements);
    return structuredClone({
      ...held.signal,
      status,
      content: revealed ? content : null,
      statements: held.statements.map((s) => (revealed ? s : { ...s, statement: null, signer: null, signature: null })),
    }) as Signal;
  }

  /** Every signal, newest first, as the public list answers them. */
  list(now = new Date(this.clock)): Signal[] {
    return [...this.signals.keys()].reverse().map((id) => this.signal(id, now));
  }
}

/** A decimal string as twelfths-of-a-trillion (the contract's decimals have at most 12 fraction digits). */
const SCALE = 10n ** 12n;
const scaled = (dec: string) => {
  const [whole = '0', fraction = ''] = dec.split('.');
  return BigInt(whole) * SCALE + BigInt(fraction.padEnd(12, '0'));
};
const decimal = (value: bigint) => {
  const whole = value / SCALE;
  const fraction = (value % SCALE).toString().padStart(12, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
};

/**
 * The content and status the contract gives these statements ("Signals"), written here from its
 * words: the open's terms, each update's named fields replacing, `openPct` = 100 minus every
 * `closePct` (exact), `cancelled` after a cancel, `closed` at 0 (the terms never expire).
 */
function contentOf(statements: readonly View[]): { content: Signal['content']; status: Signal['status'] } {
  const content = { ...TERMS, openPct: '100', note: null as string | null };
  let open = scaled('100');
  let cancelled = false;
  for (const view of statements) {
    const fields = JSON.parse(view.statement!) as Record<string, unknown>;
    if (view.type === 'signal.update') {
      for (const name of ['stop', 'targets', 'note'] as const) {
        if (name in fields) Object.assign(content, { [name]: fields[name] });
      }
    } else if (view.type === 'signal.close') {
      open -= scaled(fields.closePct as string);
    } else if (view.type === 'signal.cancel') {
      cancelled = true;
    }
  }
  content.openPct = decimal(open);
  return { content, status: cancelled ? 'cancelled' : open === 0n ? 'closed' : 'open' };
}
