/**
 * An operator's https avatar in the demo app (issue 42, item 10): the contract lets an avatarUrl
 * be any absolute https URL, and the pages' Content-Security-Policy used to allow images from this
 * origin only (`img-src 'self' data:`), so every such avatar was blocked (initials shown, a CSP
 * error logged). Chromium (Debian's, through playwright-core) opens a provider whose avatar an
 * operator set to an image on a local https server of the test's own (a self-signed certificate
 * for 127.0.0.1 made with openssl; Chromium started with --ignore-certificate-errors): the image
 * is fetched and shown, no `securitypolicyviolation` event and no console error. The same policy
 * still blocks a script and a frame from that other origin, and plain-http images.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithoutChromium, useWebApp } from '../browser.js';
import { call } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
// A 2×2 red PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

/** Records the page's CSP violations (directive and URL) from the first script on (in the page). */
const RECORD_VIOLATIONS = `
  window.cspViolations = [];
  document.addEventListener('securitypolicyviolation', (event) => {
    window.cspViolations.push(event.effectiveDirective + ' ' + event.blockedURI);
  });
`;

/** In the page: a script, a frame and a plain-http image from elsewhere; what was blocked. */
const TRY_FOREIGN = (from: string) => `(async () => {
  window.cspViolations.length = 0;
  const script = document.createElement('script');
  script.src = ${JSON.stringify(`${from}/evil.js`)};
  document.body.append(script);
  const frame = document.createElement('iframe');
  frame.src = ${JSON.stringify(`${from}/frame.html`)};
  document.body.append(frame);
  const image = new Image();
  image.src = 'http://127.0.0.1:9/plain.png';
  document.body.append(image);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { seen: [...window.cspViolations], pwned: window.pwned === true };
})()`;

describe.skipIf(skipWithoutChromium('web.avatars.browser.test.ts'))(
  "an operator's https avatar in the demo app",
  () => {
    const app = useWebApp('postgres', {
      env: { ADMIN_KEY },
      chromiumArgs: ['--ignore-certificate-errors'],
      prepare: async ({ page }) => {
        await page.addInitScript({ content: RECORD_VIOLATIONS });
      },
    });
    let images: Server;
    let origin: string;
    let dir: string;
    const requested: string[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'signal-avatar-tls-'));
      const key = join(dir, 'key.pem');
      const cert = join(dir, 'cert.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      images = createServer({ key: await readFile(key), cert: await readFile(cert) }, (req, res) => {
        requested.push(req.url ?? '');
        if (req.url?.endsWith('.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
        else if (req.url?.endsWith('.js'))
          res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.pwned = true;');
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>framed</p>');
      });
      await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
      const address = images.address();
      origin = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });

    afterAll(async () => {
      // Chromium may still hold a keep-alive connection.
      images?.closeAllConnections();
      await new Promise((resolve) => images?.close(resolve));
      await rm(dir, { recursive: true, force: true });
    });

    it('the page policy allows https images and still only this origin for scripts and frames', async () => {
      const page = await fetch(`${app.api.url}/`);
      const policy = Object.fromEntries(
        (page.headers.get('content-security-policy') ?? '').split(';').map((part) => {
          const [name = '', ...values] = part.trim().split(/\s+/);
          return [name, values];
        }),
      );
      expect(policy['img-src']).toEqual(["'self'", 'data:', 'https:']);
      expect(policy['script-src']).toEqual(["'self'"]);
      expect(policy['default-src']).toEqual(["'none'"]);
      expect(policy['frame-src']).toBeUndefined(); // frames fall to default-src 'none'
      expect(policy['frame-ancestors']).toEqual(["'none'"]);
    });

    it('shows the avatar an operator set, fetched from its https origin, with no CSP violation', async () => {
      const created = await call(app.api, 'POST', '/providers', {
        token: ADMIN_KEY,
        body: { name: 'Remote Avatar Desk', avatarUrl: `${origin}/avatars/remote.png` },
      });
      expect(created.status).toBe(201);
      const { page, problems } = app;
      await page.goto(`${app.api.url}/#/providers/${created.body.id}`);
      const avatar = page.locator(`img.avatar[src="${origin}/avatars/remote.png"]`);
      await avatar.waitFor({ timeout: 10_000 });
      // Loaded and decoded: the 2×2 image, not a broken one.
      await expect
        .poll(() =>
          avatar.evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth),
        )
        .toBe(2);
      expect(await page.locator('.avatar-initials').count()).toBe(0);
      expect(requested).toContain('/avatars/remote.png');
      expect(await page.evaluate('window.cspViolations')).toEqual([]);
      expect(problems).toEqual([]);
    });

    it('a script, a frame and a plain-http image from elsewhere are still blocked', async () => {
      const { page } = app;
      const violations = (await page.evaluate(TRY_FOREIGN(origin))) as { seen: string[]; pwned: boolean };
      expect(violations.pwned).toBe(false);
      expect(violations.seen).toEqual(
        expect.arrayContaining([
          `script-src-elem ${origin}/evil.js`,
          // A frame's blocked URI is reported as its origin.
          `frame-src ${origin}`,
          'img-src http://127.0.0.1:9/plain.png',
        ]),
      );
      expect(requested).not.toContain('/evil.js');
      expect(requested).not.toContain('/frame.html');
    });
  },
);
