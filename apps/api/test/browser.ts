/**
 * The browser the browser tests drive: Debian's Chromium (/usr/bin/chromium) through
 * playwright-core, with a fresh profile per launch. npm's browser downloads do not work on this
 * network, so no Playwright browser is involved; .ci/run installs the chromium package.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Backend } from '@signal/db';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { WEB_DIST_DIR } from '../src/pages/web.js';
import { startApi, type TestApi } from './harness.js';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-quic',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots of every test run (git-ignored): look at them, a blank page can still have the DOM. */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/**
 * Whether `file` has to skip: only on a developer machine without Chromium, and it says so.
 * With CI=true it never skips, so a CI machine without Chromium fails instead.
 */
export function skipWithoutChromium(file: string): boolean {
  const skip = !existsSync(CHROMIUM) && process.env.CI !== 'true';
  if (skip) console.warn(`${file}: SKIPPED, ${CHROMIUM} is not installed (apt-get install chromium). CI runs it.`);
  return skip;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1280, height: 900 }, args: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: CI must install the chromium package`);
  await mkdir(ARTIFACTS, { recursive: true });
  const userDataDir = await mkdtemp(join(tmpdir(), 'signal-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, ...args],
      viewport,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    return {
      context,
      page,
      async close() {
        await context.close();
        await rm(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Collects what a page should never produce: uncaught errors, and console errors (which include
 * Content-Security-Policy violations) except those `expected` matches.
 */
export function watchProblems(page: Page, expected?: RegExp): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected?.test(message.text())) problems.push(message.text());
  });
  return problems;
}

/** Saves a screenshot of the page (the viewport, or all of it) to the artifacts dir; returns its path. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? false });
  return path;
}

/** What useWebApp starts: the API serving the web build, and a Chromium page watched for problems. */
export interface WebApp {
  api: TestApi;
  browser: Browser;
  page: Page;
  problems: string[];
}

export interface WebAppOptions {
  env?: Record<string, string>;
  viewport?: { width: number; height: number };
  /** More Chromium switches (e.g. `--ignore-certificate-errors` for a test's own https server). */
  chromiumArgs?: string[];
  /** Console errors the tests expect (see watchProblems). */
  expected?: RegExp;
  /** Runs once the page exists, before its problems are watched (inject wallets, move the clock). */
  prepare?: (app: WebApp) => Promise<void>;
}

/**
 * In a describe block: starts the API with the web build and a Chromium page before its tests
 * (failing when there is no web build), and stops both after them. Read the fields in tests.
 */
export function useWebApp(backend: Backend, options: WebAppOptions = {}): WebApp {
  const app = { problems: [] as string[] } as WebApp;
  beforeAll(async () => {
    if (!existsSync(join(WEB_DIST_DIR, 'index.html'))) {
      throw new Error(`no web build in ${WEB_DIST_DIR}: run pnpm build (turbo builds it before these tests)`);
    }
    app.api = await startApi(backend, { env: options.env });
    app.browser = await launchChromium(options.viewport, options.chromiumArgs);
    app.page = app.browser.page;
    await options.prepare?.(app);
    app.problems = watchProblems(app.page, options.expected);
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.api?.stop();
  });
  return app;
}
