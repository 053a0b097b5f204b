/**
 * The documented examples of the signal routes (shown in the OpenAPI document; `satisfies` holds
 * them to their schemas' types): one signal opened and partly closed, as a
 * reader who may see it and as the public before its reveal.
 */
import type { Signal, SignalContent, SignalList, SignalStatementAnswer } from './signal.schemas.js';

/**
 * The example signal's terms, fresh on each call: the one fixture the tests, the bench and these
 * examples open a signal with (the core checks, the SDK, the API's signal tests spread it).
 */
export const signalTerms = (): Omit<SignalContent, 'openPct' | 'expiresAt' | 'note'> => ({
  instrument: 'BTC-USD',
  side: 'long',
  entry: { type: 'limit', price: '64250.5' },
  stop: '61000',
  targets: ['68000', '72000'],
  sizePct: '2.5',
});

const wallet = '0x52908400098527886E0F7030069857D2E4169EE7';
const openText =
  '{"entry":{"price":"64250.5","type":"limit"},"expiresAt":"2026-11-30T10:00:00.000Z","id":"s_7Qm2","instrument":' +
  '"BTC-USD","issuedAt":"2026-11-23T10:00:00.000Z","log":"localhost/signals","provider":5,"salt":' +
  '"n3Wc0xq9bR2kH7yLpA4sVg","side":"long","sizePct":"2.5","stop":"61000","targets":["68000","72000"],' +
  '"type":"signal.open","v":1}';
const closeText =
  '{"closePct":"33.3","id":"u_Zp81","issuedAt":"2026-11-24T08:00:00.000Z","log":"localhost/signals","provider":5,' +
  '"salt":"Qk2v9Lw0mXa7cR4tYb1nPe","signal":"s_7Qm2","type":"signal.close","v":1}';
const signature = `0x${'5'.repeat(130)}`;

export const signal = {
  id: 's_7Qm2',
  providerId: 5,
  status: 'open',
  publishedAt: '2026-11-23T10:00:00.412Z',
  revealAt: '2026-11-23T11:00:00.412Z',
  content: {
    ...signalTerms(),
    openPct: '66.7',
    expiresAt: '2026-11-30T10:00:00.000Z',
    note: null,
  },
  statements: [
    {
      logIndex: 61,
      type: 'signal.open',
      receivedAt: '2026-11-23T10:00:00.412Z',
      commitment: '5d41402abc4b2a76b9719d911017c592ae2c1b3f5a8e7c2d9f0b6e4a1c3d5e7f',
      statement: openText,
      signer: wallet,
      signature,
    },
    {
      logIndex: 75,
      type: 'signal.close',
      receivedAt: '2026-11-24T08:00:00.120Z',
      commitment: '9b74c9897bac770ffc029102a200c5de3f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c',
      statement: closeText,
      signer: wallet,
      signature,
    },
  ],
} satisfies Signal;

/** The same signal for the public before its reveal: no content, the statements by commitment only. */
export const unrevealedSignal = {
  ...signal,
  content: null,
  statements: signal.statements.map((s) => ({ ...s, statement: null, signer: null, signature: null })),
} satisfies Signal;

export const signalAnswer = {
  signal: { ...signal, content: { ...signal.content, openPct: '100' }, statements: [signal.statements[0]!] },
  receipt: {
    logIndex: 61,
    checkpoint:
      'localhost/signals\n62\nq1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c=\n\n— localhost/signals Az3f9Q1x2w3e4r5t6y7u8i9o0p1a2s3d4f5g6h7j8k9l0zxcvbnm=\n',
    proof: ['Aippeebat6pa5MPl5F9+l3ESp+Y1k4INvsHsc4ok+Tw=', 'WX/LMSgtNGVMIA00GPylcFxkjr8ybsc9jd7xGEH4dtg='],
  },
} satisfies SignalStatementAnswer;

export const openSignalRequest = { id: 5, statement: openText, signer: wallet, signature };
export const closeSignalRequest = { id: 5, signalId: 's_7Qm2', statement: closeText, signer: wallet, signature };

export const signalList = { items: [unrevealedSignal], nextCursor: null } satisfies SignalList;
