// Phones: at 320, 390 and 430 CSS pixels, as Chromium emulates a touch phone,
// every annotator page fits the width with no sideways scroll, the answer and Check/Submit
// buttons are whole, on screen and touch-sized (44 px, WCAG 2.5.5), the APT Check result is in
// view after a Check, and the admin and researcher pages do not scroll sideways either (their
// wide tables scroll inside their own box).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, newPage, unexpectedErrors, loginAdmin, registerWorker, uploadFile,
  phone, sidewaysScroll, hydrated, newCampaignForm, createCampaign, openToWorkers,
} from '../support.mjs';

let server;
let browser;
let judgeId;
let aptId;

// Long sentences, and one with a 60-character token (a URL, a hashtag run) that cannot wrap at a
// space: it must break rather than widen the page.
const LONG = 'The committee, after a long and often heated debate that ran well past midnight, agreed to postpone the vote on the new budget until the spring session.';
const PAIRS = ['sentence1,sentence2']
  .concat(Array.from({ length: 12 }, (_, i) => `"${LONG} (${i})",Pair ${i}: see https://example.org/a-very-long-path-without-any-spaces-at-all-${i}`))
  .join('\n');
// Test pairs with no explanation: a miss shows the definition instead.
const GOLD = ['sentence1,sentence2,label']
  .concat(Array.from({ length: 4 }, (_, i) => `Test ${i} happened on Monday.,Test ${i} happened on Friday.,0`))
  .join('\n');
const SOURCE = 'The company said its profits rose sharply last year.';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const admin = await newPage(browser);
  await createCampaign(admin, await newCampaignForm(admin, server, 'judging', 'Phone judging'), 'judging', 'Phone judging');
  await uploadFile(admin, 'pairs.csv', PAIRS);
  await uploadFile(admin, 'gold.csv', GOLD, { asTests: true });
  judgeId = await openToWorkers(admin);

  const aptForm = await newCampaignForm(admin, server, 'writing', 'Phone writing', { loggedIn: true });
  await createCampaign(admin, aptForm, 'writing', 'Phone writing');
  await uploadFile(admin, 'sources.tsv', `text\torigin\n${SOURCE}\tmsrp\n${LONG}\tmsrp\n`);
  aptId = await openToWorkers(admin);
  await admin.context().close();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Asserts that `locator`'s box is whole inside the window and at least 44 px both ways. */
async function assertTouchTarget(page, locator, what) {
  const box = await locator.boundingBox();
  const { width, height } = page.viewportSize();
  assert.ok(box, `${what} is drawn`);
  assert.ok(box.x >= 0 && box.x + box.width <= width + 1, `${what} fits across (${JSON.stringify(box)} in ${width} px)`);
  assert.ok(box.y >= 0 && box.y + box.height <= height + 1, `${what} is on screen (${JSON.stringify(box)} in ${height} px)`);
  assert.ok(box.height >= 44 && box.width >= 44, `${what} is touch-sized (${box.width} x ${box.height})`);
}

/** With E2E_SCREENSHOTS=DIR, saves what the page looks like (to look at by eye). */
async function shot(page, name) {
  if (process.env.E2E_SCREENSHOTS) await page.screenshot({ path: `${process.env.E2E_SCREENSHOTS}/${name}.png` });
}

async function assertFits(page, what) {
  assert.equal(await sidewaysScroll(page), 0, `${what} scrolls sideways at ${page.viewportSize().width} px`);
}

for (const width of [320, 390, 430]) {
  test(`annotator pages fit a ${width} px phone`, async () => {
    const page = await newPage(browser, phone(width));
    await page.goto(server.url);
    await assertFits(page, 'the welcome page');
    await page.goto(`${server.url}/login`);
    await assertFits(page, 'the login page');
    await registerWorker(page, server, `phone${width}`);
    await assertFits(page, 'the home page');
    await assertTouchTarget(page, page.getByRole('button', { name: 'Log out' }), 'Log out');

    // Judging: both answers whole, side by side or not, and big enough to tap.
    await page.getByRole('link', { name: 'Phone judging' }).click();
    await page.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
    await hydrated(page);
    await assertFits(page, 'the judging page');
    await shot(page, `judge-${width}`);
    const yes = page.getByRole('button', { name: /^Paraphrase/ });
    const no = page.getByRole('button', { name: 'Not paraphrase' });
    await assertTouchTarget(page, yes, '"Paraphrase"');
    await assertTouchTarget(page, no, '"Not paraphrase"');
    assert.equal(await page.getByText('Keys: 1 or').isVisible(), false, 'no keyboard hints on a touch screen');
    await page.getByRole('button', { name: 'Show the definition' }).tap();
    await page.getByTestId('definition').waitFor();
    await assertFits(page, 'the judging page with its definition open');
    // Tap "Paraphrase" through the first block of five pairs: its test pair is missed, and its
    // feedback (the definition, as the pair has no explanation) fits too.
    let feedbacks = 0;
    for (let n = 0; n < 5; n += 1) {
      await page.waitForTimeout(400); // reading; answers faster than the campaign's minimum are ignored
      await page.getByRole('button', { name: /^Paraphrase/ }).tap();
      const moved = page.getByTestId('judged').filter({ hasText: new RegExp(`^${n + 1}$`) });
      const alert = page.getByRole('alertdialog');
      await Promise.race([moved.waitFor(), alert.waitFor()]);
      if (await alert.count()) {
        feedbacks += 1;
        assert.match(await alert.getByTestId('explanation-fallback').textContent(), /^The definition: /);
        await assertFits(page, 'a test pair\'s feedback');
        // A touch screen has no Enter key to name.
        assert.equal(await alert.getByTestId('continue').innerText(), 'Continue');
        await shot(page, `feedback-${width}`);
        await alert.getByRole('button', { name: /Continue/ }).tap();
        await moved.waitFor();
      }
      await assertFits(page, `judging pair ${n + 2}`);
    }
    assert.equal(feedbacks, 1, 'one test pair in the first five, missed');

    // Writing: the Check result is in view without scrolling, and Submit is whole.
    await page.goto(`${server.url}/apt/${aptId}`);
    await page.getByRole('heading', { name: 'Rewrite the sentence' }).waitFor();
    await hydrated(page);
    await assertFits(page, 'the writing page');
    await page.getByLabel('Your sentence').fill('According to the firm, last year brought a steep increase in earnings.');
    // Typed text reads as text, not as its bold label.
    assert.equal(await page.getByLabel('Your sentence').evaluate((t) => getComputedStyle(t).fontWeight), '400');
    await page.getByRole('button', { name: 'Check', exact: true }).tap();
    const result = page.getByTestId('check-result');
    await result.waitFor();
    await page.waitForFunction(() => {
      const r = document.querySelector('[data-testid="check-result"]').getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    }, null, { timeout: 5000 }).catch(() => {});
    const box = await result.boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= 844 + 1, `the Check result is in view at ${width} px (${JSON.stringify(box)})`);
    await shot(page, `apt-${width}`);
    await assertFits(page, 'the writing page with a result');
    await assertTouchTarget(page, page.getByRole('button', { name: /^Submit/ }), 'Submit');
    assert.deepEqual(unexpectedErrors(page), []);
    await page.context().close();
  });
}

// The pair comes first: before a first answer is possible, both sentences are whole on screen
// and above the answer buttons (which stay pinned to the bottom of a phone's screen), the rule
// for check questions said below them; after the first answer the rule is one line.
for (const [width, height] of [[320, 568], [360, 740], [390, 844]]) {
  test(`the first pair is whole above the answers at ${width}x${height}`, async () => {
    const page = await newPage(browser, { ...phone(width), viewport: { width, height } });
    await registerWorker(page, server, `first${width}`);
    await page.getByRole('link', { name: 'Phone judging' }).click();
    await page.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
    await hydrated(page);
    await shot(page, `first-pair-${width}x${height}`);
    const yes = await page.getByRole('button', { name: /^Paraphrase/ }).boundingBox();
    const no = await page.getByRole('button', { name: 'Not paraphrase' }).boundingBox();
    const buttonsTop = Math.min(yes.y, no.y);
    assert.ok(buttonsTop + yes.height <= height + 1, `the answers are on screen (${JSON.stringify(yes)})`);
    for (const which of ['Sentence 1', 'Sentence 2']) {
      const box = await page.getByLabel(which).boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= buttonsTop + 1, `${which} is whole above the answers at ${width}x${height} (${JSON.stringify(box)}; answers from ${buttonsTop})`);
    }
    // The rule is there, below the pair.
    const rule = await page.getByTestId('quality-rule').boundingBox();
    const s2 = await page.getByLabel('Sentence 2').boundingBox();
    assert.ok(rule.y >= s2.y + s2.height, 'the rule comes after the pair');
    await page.waitForTimeout(400);
    await page.getByRole('button', { name: /^Paraphrase/ }).tap();
    const moved = page.getByTestId('judged').filter({ hasText: /^1$/ });
    const alert = page.getByRole('alertdialog');
    await Promise.race([moved.waitFor(), alert.waitFor()]);
    if (await alert.count()) await alert.getByRole('button', { name: /Continue/ }).tap();
    await moved.waitFor();
    assert.equal(await page.getByTestId('quality-rule').count(), 0);
    assert.match(await page.getByTestId('quality-rule-line').textContent(), /check questions/);
    assert.deepEqual(unexpectedErrors(page), []);
    await page.context().close();
  });
}

test('admin and researcher pages do not scroll sideways at 390 px', async () => {
  const admin = await newPage(browser, phone(390));
  await loginAdmin(admin, server);
  const pages = [
    '/', '/admin/campaigns', `/admin/campaigns/${judgeId}`, `/admin/campaigns/${aptId}`,
    '/admin/mining', '/admin/users', `/research/judge/${judgeId}`, `/research/apt/${aptId}`,
    `/research/export/${judgeId}`, `/research/export/${aptId}`,
  ];
  for (const path of pages) {
    await admin.goto(`${server.url}${path}`);
    await hydrated(admin);
    await assertFits(admin, path);
    await shot(admin, `admin${path.replace(/[^a-z0-9]+/g, '-')}`);
  }
  // The gate's settings on the phone: the confidence rule tuned to workers at chance, and the
  // campaign page saying what the test tells apart.
  const form = await newCampaignForm(admin, server, 'judging', 'Phone gate', { loggedIn: true });
  await form.getByLabel('Tested against the minimum minus').fill('0.2');
  await createCampaign(admin, form, 'judging', 'Phone gate');
  await admin.getByText(/accuracy below 85% at error level 0\.3 \(the test tells it from 65%; from judgment 20; confidence rule\), or kappa below 0\.20 at judgment 50, 100, 200, …/).waitFor();
  await assertFits(admin, 'a new campaign with its worse level');
  await shot(admin, 'admin-new-campaign-worse-level');
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();
});

// What a participant's phone downloads on a first visit (an empty cache) to each step of a
// study: the page, the stylesheet and the bundle that routes it (app/src/bundles.rs: one for
// the judging page, one for the writing page, one for the entry pages), as sent (compressed).
// The researchers' and admins' pages are in the full bundle. This fails when a first visit grows
// past its budget.
const FIRST_VISIT_BUDGET_BYTES = 250_000;

/** Bytes received and the bundles loaded when `page` opens `path` with an empty cache. */
async function firstVisit(page, path) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.clearBrowserCache');
  let bytes = 0;
  const files = [];
  const onFinished = (e) => { bytes += e.encodedDataLength; };
  const onResponse = (res) => files.push(new URL(res.url()).pathname);
  cdp.on('Network.loadingFinished', onFinished);
  page.on('response', onResponse);
  await page.goto(`${server.url}${path}`);
  await hydrated(page);
  await page.waitForLoadState('load');
  page.off('response', onResponse);
  await cdp.detach();
  return { bytes, wasm: files.filter((f) => f.endsWith('.wasm')), files };
}

test('each step of a study has its own bundle, and its first visit stays within the budget', async () => {
  const page = await newPage(browser, phone(390));
  await registerWorker(page, server, 'budget');
  const visits = [
    ['judging page', `/judge/${judgeId}`],
    ['writing page', `/apt/${aptId}`],
    ['home page', '/'],
  ];
  const seen = [];
  for (const [what, path] of visits) {
    const { bytes, wasm, files } = await firstVisit(page, path);
    console.log(`first visit to the ${what}: ${bytes} bytes (budget ${FIRST_VISIT_BUDGET_BYTES})`);
    assert.equal(wasm.length, 1, `one bundle for the ${what}: ${files.join(', ')}`);
    assert.ok(bytes <= FIRST_VISIT_BUDGET_BYTES, `${bytes} bytes on the first visit to the ${what}, over the budget of ${FIRST_VISIT_BUDGET_BYTES}`);
    seen.push(wasm[0]);
  }
  assert.equal(new Set(seen).size, visits.length, `a bundle per step: ${seen.join(', ')}`);

  // From the home page (the entry bundle), the judging task's link loads the judging page
  // from the server, with its bundle, and it works.
  const loaded = [];
  page.on('response', (res) => loaded.push(new URL(res.url()).pathname));
  await page.getByRole('link', { name: 'Phone judging' }).click();
  await page.waitForURL(`**/judge/${judgeId}`);
  await hydrated(page);
  assert.ok(loaded.includes(seen[0]), `the judging bundle: ${loaded.join(', ')}`);
  const answer = page.getByRole('button', { name: 'Not paraphrase' });
  await answer.waitFor();
  const before = await page.locator('main').innerText();
  await answer.tap();
  await page.waitForFunction((text) => document.querySelector('main').innerText !== text, before);

  // A researcher's page loads the full bundle, another file; reached by a link from an
  // annotator page, it is loaded from the server and works.
  const admin = await newPage(browser);
  await loginAdmin(admin, server);
  const adminFiles = [];
  admin.on('response', (res) => adminFiles.push(new URL(res.url()).pathname));
  await admin.getByRole('link', { name: 'Manage campaigns' }).click();
  await admin.getByRole('heading', { name: 'Campaigns' }).first().waitFor();
  await hydrated(admin);
  const full = adminFiles.filter((f) => f.endsWith('.wasm'));
  assert.equal(full.length, 1, `the full bundle loaded once: ${adminFiles.join(', ')}`);
  assert.ok(!seen.includes(full[0]), `the admin page has the full bundle: ${full[0]}`);
  // Hydrated with it: a client-side link to a campaign works.
  await admin.getByRole('link', { name: 'Phone judging' }).click();
  await admin.getByRole('heading', { name: 'Phone judging' }).waitFor();
  assert.deepEqual(unexpectedErrors(page), []);
  assert.deepEqual(unexpectedErrors(admin), []);
  await page.context().close();
  await admin.context().close();
});
