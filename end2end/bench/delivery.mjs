// Delivery benchmark: bytes on the wire and time to interactive (from navigation
// start to hydration) for a first and a repeat visit of the login page and of the judging page,
// in Debian's Chromium on a throttled 4G profile. The reference in the same run is the same page
// with the bundle sent uncompressed (the browser asks for `Accept-Encoding: identity`), as before
// this issue. Usage: scripts/bench-delivery.sh (it builds and starts the server).
import { startServer, launchBrowser, loginAdmin, registerWorker, uploadFile } from '../support.mjs';

// Lighthouse's mobile profile ("Slow 4G", the throttling DevTools applies): 150 ms RTT x 3.75
// request latency, 1.6 Mbps x 0.9 down, 750 kbps x 0.9 up.
const PROFILE = {
  name: 'Lighthouse mobile "Slow 4G" (562.5 ms request latency, 1,474.6 kbps down, 675 kbps up)',
  latency: 562.5,
  downloadThroughput: (1474.56 * 1024) / 8,
  uploadThroughput: (675 * 1024) / 8,
};
const RUNS = Number(process.env.RUNS || 3);

const server = await startServer();
const browser = await launchBrowser();

// A judging campaign to open as a worker.
const setup = await (await browser.newContext()).newPage();
await loginAdmin(setup, server);
await setup.getByRole('link', { name: 'Manage campaigns' }).click();
await setup.waitForFunction(() => !!window.__paracrowd_hydrated);
const form = setup.locator('form').filter({ hasText: 'Paraphrase definition' });
await form.getByLabel('Title').fill('Delivery');
await form.getByRole('button', { name: 'Create judging campaign' }).click();
await setup.getByRole('heading', { name: 'Delivery' }).waitFor();
const pairs = ['sentence1,sentence2']
  .concat(Array.from({ length: 50 }, (_, i) => `The council met on day ${i}.,On day ${i} the council held a meeting.`))
  .join('\n');
await uploadFile(setup, 'pairs.csv', pairs);
await setup.getByRole('button', { name: 'Open to workers' }).click();
await setup.getByTestId('campaign-status').filter({ hasText: 'open' }).waitFor();
const judgePath = `/judge/${setup.url().split('/').pop()}`;
await setup.context().close();

/** One visit of `path` on `page` (throttled): bytes received and ms to hydration. */
async function visit(page, cdp, path) {
  let bytes = 0;
  const count = (e) => { bytes += e.encodedDataLength; };
  cdp.on('Network.loadingFinished', count);
  await page.goto(`${server.url}${path}`, { waitUntil: 'commit', timeout: 120_000 });
  const ms = await page.waitForFunction(
    () => window.__paracrowd_hydrated && performance.now(),
    null,
    { polling: 'raf', timeout: 120_000 },
  ).then((h) => h.jsonValue());
  await page.waitForLoadState('load');
  cdp.off('Network.loadingFinished', count);
  return { bytes, ms };
}

/** A new browser profile (empty cache), throttled; as a worker when `worker`. */
async function freshPage({ identity, worker }) {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (worker) await registerWorker(page, server, 'delivery');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.clearBrowserCache');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, ...PROFILE, name: undefined });
  if (identity) await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': 'identity' } });
  return { page, cdp, context };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [label, path, worker] of [['login page', '/login', false], ['judging page', judgePath, true]]) {
  for (const identity of [true, false]) {
    const first = [];
    const repeat = [];
    for (let r = 0; r < RUNS; r += 1) {
      const { page, cdp, context } = await freshPage({ identity, worker });
      first.push(await visit(page, cdp, path));
      repeat.push(await visit(page, cdp, path));
      await context.close();
    }
    const how = identity ? 'uncompressed (reference)' : 'brotli + immutable cache';
    for (const [visitName, xs] of [['first', first], ['repeat', repeat]]) {
      rows.push({
        page: label, bundle: how, visit: visitName,
        kb: median(xs.map((x) => x.bytes)) / 1000,
        ms: median(xs.map((x) => x.ms)),
      });
    }
  }
}
// The first answer on the judging page, cold, as a participant on a phone meets it: from the
// navigation to the answer buttons on screen (a press is then the plain form's, before the
// script runs), and to the server's answer to that press.
const answers = [];
for (let r = 0; r < RUNS; r += 1) {
  const { page, context } = await freshPage({ identity: false, worker: true });
  const started = Date.now();
  await page.goto(`${server.url}${judgePath}`, { waitUntil: 'commit', timeout: 120_000 });
  const button = page.locator('.answers button.yes');
  await button.waitFor({ timeout: 120_000 });
  const possible = Date.now() - started;
  const hydratedThen = await page.evaluate(() => !!window.__paracrowd_hydrated);
  const answered = page.waitForResponse((res) => res.url().endsWith('/api/judge/answer'), { timeout: 120_000 });
  await button.click({ noWaitAfter: true });
  await answered;
  answers.push({ possible, accepted: Date.now() - started, hydratedThen });
  await context.close();
}
await browser.close();
await server.stop();

console.log(`\nProfile: ${PROFILE.name}; median of ${RUNS} runs, each in a new browser profile.`);
console.log('| page | bundle | visit | KB on the wire | interactive (ms) |');
console.log('|---|---|---|---:|---:|');
for (const r of rows) console.log(`| ${r.page} | ${r.bundle} | ${r.visit} | ${r.kb.toFixed(1)} | ${Math.round(r.ms)} |`);
for (const page of ['login page', 'judging page']) {
  for (const visitName of ['first', 'repeat']) {
    const ref = rows.find((r) => r.page === page && r.visit === visitName && r.bundle.startsWith('uncompressed'));
    const now = rows.find((r) => r.page === page && r.visit === visitName && !r.bundle.startsWith('uncompressed'));
    console.log(`${page}, ${visitName} visit: ${(now.kb / ref.kb).toFixed(3)}x the reference's bytes, ${(now.ms / ref.ms).toFixed(2)}x its time to interactive`);
  }
}
console.log(`judging page, first answer (cold, median of ${RUNS}): buttons on screen and answerable at ${median(answers.map((a) => a.possible))} ms, `
  + `the server's answer at ${median(answers.map((a) => a.accepted))} ms; `
  + `pressed before the script ran in ${answers.filter((a) => !a.hydratedThen).length} of ${RUNS} runs`);
