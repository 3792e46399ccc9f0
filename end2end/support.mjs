// Helpers for the browser tests: start the real server binary on a free port against a fresh
// database, launch Debian's Chromium through playwright-core, and fail on any browser error.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Starts `PARACROWD_BIN serve` and resolves once /health answers; returns its URL, the first
 *  admin's generated password (printed once on first start) and a stop function. `extraEnv`
 *  adds to (or overrides) the server's environment. */
export async function startServer(extraEnv = {}) {
  const bin = process.env.PARACROWD_BIN;
  const databaseUrl = process.env.E2E_DATABASE_URL;
  if (!bin || !databaseUrl) {
    throw new Error('set PARACROWD_BIN and E2E_DATABASE_URL (scripts/test.sh does)');
  }
  const port = await freePort();
  const child = spawn(bin, ['serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PARACROWD_ADDR: `127.0.0.1:${port}`,
      RUST_LOG: process.env.RUST_LOG || 'warn',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { process.stderr.write(d); });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    try {
      const r = await fetch(`${url}/health`);
      if (r.ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`server did not answer in 60 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const m = out.match(/password: (\S+)/);
  return {
    url,
    adminPassword: m ? m[1] : null,
    output: () => out,
    stop: () => new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/** A phone: `width` CSS pixels wide (844 high), touch, no hover, as Chromium emulates one. */
export function phone(width) {
  return { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
}

/** How far the page is wider than the phone's screen (0 when everything fits). Measured against
 *  the emulated width, not window.innerWidth: a mobile browser zooms out to show a page that is
 *  too wide, and its innerWidth grows with it. */
export async function sidewaysScroll(page) {
  const { width } = page.viewportSize();
  return page.evaluate((w) => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - w, width);
}

/** A page that records console errors and page errors (a broken hydration shows up there). */
export async function newPage(browser, { javaScriptEnabled = true, ...contextOptions } = {}) {
  const context = await browser.newContext({ javaScriptEnabled, ...contextOptions });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(`console: ${msg.text()}`); });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  // Every page runs under its Content-Security-Policy: a violation is reported
  // here as well as on the console, so a test that checks unexpectedErrors fails on it.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline code'}`);
    });
  });
  page.errors = errors;
  return page;
}

export function uniqueName(prefix) {
  return `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
}

export const PASSWORD = 'correct horse battery';

/** Browser errors other than the 4xx answers a test provoked on purpose (a wrong password is a
 *  401, which Chromium logs as a failed resource load). */
export function unexpectedErrors(page) {
  return page.errors.filter(
    (e) => !/Failed to load resource: the server responded with a status of (401|403|422|429)/.test(e),
  );
}

/** Waits until the wasm bundle has hydrated `page`. On a timeout the error names the page and
 *  what the browser reported, so a CI log says which page did not hydrate and why. */
export async function hydrated(page, { timeout = 30_000 } = {}) {
  try {
    await page.waitForFunction(() => !!window.__paracrowd_hydrated, null, { timeout });
  } catch (e) {
    // A page whose main thread is stuck would never answer: give it 5 s, then report anyway.
    const state = await Promise.race([
      page.evaluate(() => ({
        readyState: document.readyState,
        scripts: [...document.scripts].map((s) => s.src || `inline ${s.type || 'script'}`).join(', '),
      })),
      new Promise((resolve) => { setTimeout(() => resolve({ unreadable: 'no answer in 5 s' }), 5_000).unref(); }),
    ]).catch((err) => ({ unreadable: String(err) }));
    throw new Error(
      `${page.url()} did not hydrate in ${timeout} ms (${e.message.split('\n')[0]}); `
      + `page: ${JSON.stringify(state)}; browser errors: ${JSON.stringify(page.errors)}`,
    );
  }
}

/** Logs the first admin in on `page`. */
export async function loginAdmin(page, server) {
  await page.goto(`${server.url}/login`);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(server.adminPassword);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Welcome, admin' }).waitFor();
}

/** Registers a new annotator on `page`; returns the name. */
export async function registerWorker(page, server, prefix) {
  const name = uniqueName(prefix);
  await page.goto(`${server.url}/register`);
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
  return name;
}

/** A desktop browser window, and the two widths a page is checked at. */
export const DESKTOP = { viewport: { width: 1280, height: 900 } };
export const BOTH_WIDTHS = [['desktop', DESKTOP], ['phone', phone(390)]];

const NEW_CAMPAIGN_FORM = { judging: 'Paraphrase definition', writing: 'BLEURT threshold' };

/** The form for a new `kind` ('judging' or 'writing') campaign on the campaigns page, its title
 *  filled in. Logs the first admin in on `page` first, unless `loggedIn`. */
export async function newCampaignForm(page, server, kind, title, { loggedIn = false } = {}) {
  if (loggedIn) {
    await page.goto(`${server.url}/admin/campaigns`);
  } else {
    await loginAdmin(page, server);
    await page.getByRole('link', { name: 'Manage campaigns' }).click();
  }
  await hydrated(page);
  const form = page.locator('form').filter({ hasText: NEW_CAMPAIGN_FORM[kind] });
  await form.getByLabel('Title').fill(title);
  return form;
}

/** Creates the campaign `form` (from `newCampaignForm`) describes and waits for its page. */
export async function createCampaign(page, form, kind, title) {
  await form.getByRole('button', { name: `Create ${kind} campaign` }).click();
  await page.getByRole('heading', { name: title, exact: true }).waitFor();
}

/** Opens the campaign whose page `page` shows to workers; returns its id. */
export async function openToWorkers(page) {
  await page.getByRole('button', { name: 'Open to workers' }).click();
  await page.getByTestId('campaign-status').filter({ hasText: 'open' }).waitFor();
  return page.url().split('/').pop();
}

/** Uploads `content` as a file named `name` through the campaign page's import form. */
export async function uploadFile(page, name, content, { asTests = false } = {}) {
  await hydrated(page);
  await page.getByLabel('File').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(content) });
  const box = page.getByLabel(/Labeled rows are hidden test pairs/);
  if (await box.count()) await box.setChecked(asTests);
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const result = page.getByTestId('import-result');
  await result.filter({ hasText: name }).waitFor();
  return result.textContent();
}

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.1 A/AA and axe's
 *  best practices), one line each, prefixed with `what` and the width; lesser ones are printed.
 *  The page's Content-Security-Policy stays on: Playwright evaluates through the DevTools
 *  protocol, which the policy does not govern. */
export async function accessibilityProblems(page, what) {
  await page.evaluate(AXE);
  const { violations } = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }),
    AXE_TAGS,
  );
  const where = `${what} at ${page.viewportSize().width} px`;
  const describe = (v) => `${where}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')})`;
  const serious = (v) => v.impact === 'serious' || v.impact === 'critical';
  for (const v of violations.filter((x) => !serious(x))) console.log(`axe (not failing): ${describe(v)}`);
  return violations.filter(serious).map(describe);
}
