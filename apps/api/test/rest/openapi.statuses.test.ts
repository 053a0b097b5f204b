/**
 * `/openapi.json` declares every status the service answers (issue 42, item 10). Every
 * operation's documented example request (its parameters' examples, its body's example, a
 * credential of the kind it declares) is sent to a real server twice, the second time with the
 * first answer's ETag in If-None-Match, and each answer's status must be one the document
 * declares for that operation; so are the answers of the two real flows the examples cannot make
 * succeed (a wallet linked twice: 201 then 200; a chart revalidated: 200 then 304). So the next
 * undeclared status fails here. Then the same requests go through Prism (`@stoplight/prism-cli`)
 * as a validating proxy in `--errors` mode, which turns an answer the document does not describe
 * into a 500 with an `sl-violations` header: every answer must come through unchanged.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '@signal/test-support';
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, expect, it } from 'vitest';
import { documentedOperations } from '../fuzz-support.js';
import { call, evmWallet, type Reply, signIn, useApi } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
type Document = { paths: Record<string, Partial<Record<'get' | 'post', { responses: Record<string, unknown> }>>> };

/** One request: method, path with its query, the credential it carries, its body. */
interface Example {
  label: string;
  method: string;
  path: string;
  declared: string[];
  credential: 'none' | 'user' | 'service';
  body?: unknown;
}

/** The example request of every operation of the document. */
function exampleRequests(doc: unknown): Example[] {
  return documentedOperations(doc).map((operation) => {
    let path = operation.template;
    const query = new URLSearchParams();
    for (const parameter of operation.parameters) {
      if (parameter.example === undefined) continue;
      const value = String(parameter.example);
      if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
      else if (parameter.in === 'query') query.set(parameter.name, value);
    }
    const scheme = Object.keys(operation.security?.[0] ?? {})[0];
    return {
      label: `${operation.method} ${operation.template}`,
      method: operation.method,
      path: `${path}${query.size > 0 ? `?${query}` : ''}`,
      declared: operation.statuses,
      credential:
        scheme === undefined ? 'none' : /bearer/i.test(scheme) && !/service/i.test(scheme) ? 'user' : 'service',
      body: operation.example,
    };
  });
}

/** Prism's CLI, from the workspace's own install. */
function prismBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
}

describeBackends('every status the service answers is declared in /openapi.json, on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY, SEED_PROVIDERS: '10' } });
  let doc: Document;
  let requests: Example[];

  beforeAll(async () => {
    doc = (await call(api, 'GET', '/openapi.json')).body;
    requests = exampleRequests(doc);
  });

  /** A token for each user request: a fresh user, since some examples sign out or revoke. */
  const tokenFor = async (credential: Example['credential']) =>
    credential === 'user' ? (await signIn(api, evmWallet())).token : credential === 'service' ? ADMIN_KEY : undefined;

  /** Sends an example to `base` twice (the second with the first's ETag); both answers. */
  const sendTwice = async (base: { url: string }, example: Example): Promise<Reply[]> => {
    const token = await tokenFor(example.credential);
    const send = (headers: Record<string, string> = {}) =>
      call(base, example.method, example.path, { token, body: example.body, headers });
    const first = await send();
    const etag = first.headers.get('etag');
    const second = await send(example.method === 'GET' && etag ? { 'if-none-match': etag } : {});
    return [first, second];
  };

  it('every documented example request, sent twice, answers only statuses its operation declares', async () => {
    expect(requests.length).toBeGreaterThan(30);
    const undeclared: string[] = [];
    for (const example of requests) {
      for (const reply of await sendTwice(api, example)) {
        if (!example.declared.includes(String(reply.status))) {
          undeclared.push(`${example.label}: ${reply.status} (declared ${example.declared.join(', ')})`);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('the two answers the examples cannot reach: a wallet linked again (200), a chart revalidated (304)', async () => {
    const declared = (path: string, method: 'get' | 'post') => Object.keys(doc.paths[path]?.[method]?.responses ?? {});
    const { token } = await signIn(api, evmWallet());
    const second = evmWallet();
    const link = async () => {
      const nonce = await call(api, 'GET', `/auth/nonce?wallet=${second.address}&purpose=link`, { token });
      const signature = await second.sign(nonce.body.message);
      return call(api, 'POST', '/me/wallets', {
        token,
        body: { wallet: second.address, nonce: nonce.body.nonce, signature },
      });
    };
    const statuses = [(await link()).status, (await link()).status];
    expect(statuses).toEqual([201, 200]);
    for (const status of statuses) expect(declared('/me/wallets', 'post')).toContain(String(status));

    const chart = await call(api, 'GET', '/providers/5/performance?window=30d');
    expect(chart.status).toBe(200);
    const again = await call(api, 'GET', '/providers/5/performance?window=30d', {
      headers: { 'if-none-match': chart.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
    expect(declared('/providers/{id}/performance', 'get')).toEqual(expect.arrayContaining(['200', '304']));
  });

  it.skipIf(backend !== 'postgres')(
    "through Prism's --errors proxy every answer passes unchanged",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'signal-prism-'));
      const spec = join(dir, 'openapi.json');
      await writeFile(spec, JSON.stringify(doc));
      const port = await freePort();
      let output = '';
      const prism: ChildProcess = spawn(
        process.execPath,
        [prismBin(), 'proxy', '--errors', '--host', '127.0.0.1', '--port', String(port), spec, api.url],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      prism.stdout?.on('data', (chunk) => {
        output += chunk;
      });
      prism.stderr?.on('data', (chunk) => {
        output += chunk;
      });
      const proxy = { url: `http://127.0.0.1:${port}` };
      try {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const ready = await fetch(`${proxy.url}/health`).then(
            (res) => res.status === 200,
            () => false,
          );
          if (ready) break;
          if (Date.now() > deadline || prism.exitCode !== null) throw new Error(`Prism did not start: ${output}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const violations: string[] = [];
        for (const example of requests) {
          for (const reply of await sendTwice(proxy, example)) {
            const header = reply.headers.get('sl-violations');
            if (header || !example.declared.includes(String(reply.status))) {
              violations.push(
                `${example.label}: ${reply.status} ${header ?? ''} ${JSON.stringify(reply.body ?? null).slice(0, 300)}`,
              );
            }
          }
        }
        expect(violations).toEqual([]);
      } finally {
        prism.kill('SIGTERM');
        await rm(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
