/**
 * Property-based fuzzing of the signed-statement routes past the signature check (fast-check):
 * every kind of statement (an open, an update, a close, a cancel, a key delegation, a key
 * revocation) built valid, then mutated (a field dropped, replaced by a value of any JSON type,
 * an extra key; sometimes not in canonical form) and signed for real by the provider's publisher
 * wallet (viem), a key it delegated (node:crypto) or a stranger. So the service judges what a
 * publisher really signed, not a broken signature. Properties:
 * - every answer is a status the route documents, below 500, in the contract's error shape;
 * - an accepted statement is in the log as sent: its receipt checks (node:crypto alone), and
 *   its entry commits to the statement's bytes (a signal's) or holds it whole (a key's);
 * - a 200 answers only a statement accepted before (a retry), never a new one;
 * - nothing else reaches the log: after the run the log grew by exactly the accepted statements,
 *   at the indexes their answers gave, and Go's tlog verifies it consistent with the log before.
 * STATEMENT_FUZZ_RUNS sets the number of statements (default 250).
 */
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { checkReply, documentedOperations, type Json, mutate, mutation } from '../fuzz-support.js';
import { call, createServiceKey, evmWallet, useApi } from '../harness.js';
import { checkpointOfSize, expectLogVerifiedTwice, fetchCheckpoint, fetchVerifierKey } from '../log/log-support.js';
import { httpCall } from '../raw-http.js';
import { changeFields, newDesk, openFields, type SignalDesk, signalsPath, updatesPath } from './signal-support.js';
import {
  canonical,
  checkReceipt,
  commitmentOf,
  delegatedKey,
  delegationFields,
  type StatementSigner,
  servedEntry,
  signed,
  walletSigner,
} from './statement-support.js';

const RUNS = Number(process.env.STATEMENT_FUZZ_RUNS ?? 250);
const ORIGIN = 'fuzz.test/signals';
const ADMIN_KEY = `admin-${'z'.repeat(40)}`;

const KINDS = ['signal.open', 'signal.update', 'signal.close', 'signal.cancel', 'key.delegate', 'key.revoke'] as const;
type Kind = (typeof KINDS)[number];

/** An accepted statement: what was sent and where the answer says it went. */
interface Accepted {
  kind: Kind;
  statement: string;
  logIndex: number;
  receipt?: { logIndex: number; checkpoint: string; proof: string[] };
}

const api = useApi('postgres', {
  env: { ADMIN_KEY, LOG_ORIGIN: ORIGIN, SIGNAL_RATE_LIMIT_PER_MINUTE: '0', SERVICE_KEY_RATE_LIMIT_PER_MINUTE: '0' },
});
const wallet = walletSigner(evmWallet());
const key = delegatedKey();
const stranger = walletSigner(evmWallet());
let desk: SignalDesk;
let verifierKey: string;
let statuses: Map<string, string[]>;
/** Signals and delegated keys to aim updates and revocations at (the main key is never revoked). */
const targets = { signals: [] as string[], keys: [] as string[] };

const post = async (path: string, body: unknown) => {
  const req = { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const reply = await httpCall(api.url, req);
  checkReply(req, reply);
  return { status: reply.status, body: reply.text ? JSON.parse(reply.text) : undefined, text: reply.text };
};

beforeAll(async () => {
  statuses = new Map(
    documentedOperations((await call(api, 'GET', '/openapi.json')).body).map((op) => [
      `${op.method} ${op.template}`,
      op.statuses,
    ]),
  );
  const writer = await createServiceKey(api, ADMIN_KEY, 'writer', ['providers:write']);
  desk = await newDesk(api, ORIGIN, writer, [wallet.signer]);
  verifierKey = await fetchVerifierKey(api.url);
  const delegation = await signed(delegationFields(ORIGIN, desk.providerId, key.key), wallet);
  expect((await post(`/providers/${desk.providerId}/publisher-keys`, delegation)).status).toBe(201);
  for (let i = 0; i < 3; i++) {
    const opened = await post(signalsPath(desk.providerId), await signed(openFields(desk), wallet));
    expect(opened.status).toBe(201);
    targets.signals.push(opened.body.signal.id);
  }
});

/** The statement's fields before mutation, and the route it goes to. */
function valid(kind: Kind, target: number): { fields: Record<string, unknown>; path: string; template: string } {
  const provider = desk.providerId;
  if (kind === 'signal.open') {
    return { fields: openFields(desk), path: signalsPath(provider), template: 'POST /providers/{id}/signals' };
  }
  if (kind === 'key.delegate') {
    return {
      fields: delegationFields(ORIGIN, provider, delegatedKey().key),
      path: `/providers/${provider}/publisher-keys`,
      template: 'POST /providers/{id}/publisher-keys',
    };
  }
  if (kind === 'key.revoke') {
    const revoked = targets.keys[target % Math.max(1, targets.keys.length)] ?? delegatedKey().key;
    return {
      fields: { issuedAt: new Date().toISOString(), key: revoked, log: ORIGIN, provider, type: 'key.revoke', v: 1 },
      path: `/providers/${provider}/publisher-keys/${revoked}/revoke`,
      template: 'POST /providers/{id}/publisher-keys/{key}/revoke',
    };
  }
  const signal = targets.signals[target % targets.signals.length] as string;
  const extra =
    kind === 'signal.update' ? { stop: '60000', note: 'moved' } : kind === 'signal.close' ? { closePct: '10' } : {};
  return {
    fields: changeFields(desk, signal, kind, extra),
    path: updatesPath(provider, signal),
    template: 'POST /providers/{id}/signals/{signalId}/updates',
  };
}

const statement = fc.record({
  kind: fc.constantFrom(...KINDS),
  target: fc.nat(),
  by: fc.constantFrom('wallet', 'wallet', 'key', 'key', 'stranger'),
  steps: fc.array(mutation, { maxLength: 3 }),
  /** Sent as signed, or re-spaced after signing's canonical form (still signed as sent). */
  spaced: fc.integer({ min: 0, max: 99 }).map((n) => n < 15),
});

it(`${RUNS} mutated statements, each really signed: documented answers only, and the log holds exactly the accepted ones`, async () => {
  const before = await fetchCheckpoint(api.url, verifierKey);
  const accepted: Accepted[] = [];
  const sent = new Set<string>();
  const signers: Record<string, StatementSigner> = { wallet, key, stranger };
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(statement, async (c) => {
      const { fields, path, template } = valid(c.kind, c.target);
      const value = c.steps.reduce(mutate, fields as Json);
      const text = c.spaced ? JSON.stringify(value, null, 1) : canonical(value);
      const by = signers[c.by] as StatementSigner;
      const body = { statement: text, signer: by.signer, signature: await by.sign(text) };
      const reply = await post(path, body);
      expect(statuses.get(template), `${template}: ${reply.status} ${reply.text.slice(0, 300)}`).toContain(
        String(reply.status),
      );
      const isNew = !sent.has(text);
      sent.add(text);
      if (reply.status >= 300) {
        refused++;
        return;
      }
      if (c.kind === 'key.revoke') {
        expect(reply.body).toMatchObject({ revoked: true, logIndex: expect.any(Number) });
        // A revoke of a key revoked before answers the first revoke: nothing new in the log.
        if (!accepted.some((a) => a.logIndex === reply.body.logIndex)) {
          accepted.push({ kind: c.kind, statement: text, logIndex: reply.body.logIndex });
        }
        return;
      }
      if (reply.status === 200) {
        // A retry: only of a statement accepted before, answered as it was then.
        expect(isNew, `200 for a statement never sent: ${text}`).toBe(false);
        return;
      }
      expect(reply.status).toBe(201);
      if (c.kind === 'key.delegate') {
        accepted.push({ kind: c.kind, statement: text, logIndex: reply.body.logIndex });
        targets.keys.push(JSON.parse(text).key);
      } else {
        const { receipt } = reply.body;
        accepted.push({ kind: c.kind, statement: text, logIndex: receipt.logIndex, receipt });
        if (c.kind === 'signal.open') targets.signals.push(reply.body.signal.id);
      }
    }),
    { numRuns: RUNS, interruptAfterTimeLimit: 120_000 },
  );
  console.log(`statement fuzz: ${sent.size} statements, ${accepted.length} accepted, ${refused} refused`);
  expect(accepted.length).toBeGreaterThan(0);
  expect(refused).toBeGreaterThan(0);

  // The log grew by the accepted statements and nothing else, at the indexes they were given.
  const after = await checkpointOfSize(api.url, verifierKey, before.size + accepted.length);
  expect(after.size).toBe(before.size + accepted.length);
  expect(accepted.map((a) => a.logIndex).sort((x, y) => x - y)).toEqual(
    Array.from({ length: accepted.length }, (_, i) => before.size + i),
  );
  const entries: Uint8Array[] = [];
  for (let index = 0; index < after.size; index++) {
    entries.push(Buffer.from(await servedEntry(api.url, verifierKey, index), 'utf8'));
  }
  for (const { kind, statement: text, logIndex, receipt } of accepted) {
    const entry = Buffer.from(entries[logIndex] as Uint8Array).toString('utf8');
    if (receipt) {
      checkReceipt(receipt, entry, verifierKey);
      expect(JSON.parse(entry)).toMatchObject({ commitment: commitmentOf(text), type: kind });
    } else {
      expect(JSON.parse(entry)).toMatchObject({ statement: text, type: kind });
    }
  }
  await expectLogVerifiedTwice(
    api.url,
    verifierKey,
    after,
    entries,
    accepted.slice(0, 20).map((a) => a.logIndex),
    [before],
  );
}, 240_000);
