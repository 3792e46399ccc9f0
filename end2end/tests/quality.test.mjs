// Quality control in a real browser, at desktop and phone width: a worker who passes every test
// pair while answering the ordinary pairs without reading them is flagged on the researcher's
// dashboard, with the numbers and why, and excluded in one action after confirming; accounts
// that answer alike are shown as a group; the confidence gate's stops (on accuracy, and on
// kappa at its looks) are explained to the worker and on the dashboard; and the pair list gives
// each label with its posterior.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, newPage, unexpectedErrors, hydrated, phone, sidewaysScroll, uniqueName, PASSWORD,
  BOTH_WIDTHS,
} from '../support.mjs';

let server;
let browser;

before(async () => {
  // Every simulated worker here registers from this one address: more than the 20 new accounts
  // per 10 minutes the server allows one address by default.
  server = await startServer({ PARACROWD_RATE_REGISTRATIONS: '200/600' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Ordinary pairs carry their true label in sentence 2, test pairs say they are tests: the
// simulated workers answer from the text.
const pairs = (n) => ['sentence1,sentence2']
  .concat(Array.from({ length: n }, (_, i) => `Pair ${i} says one thing.,Pair ${i} says it again [${i % 2 ? 'N' : 'P'}].`))
  .join('\n');
const PAIRS = pairs(40);
const GOLD = ['sentence1,sentence2,label,explanation']
  .concat(Array.from({ length: 20 }, (_, i) => `Test ${i} says one thing.,Test ${i} says it again [${i % 2 ? 'N' : 'P'}].,${i % 2 ? 0 : 1},Because check ${i} is what it is.`))
  .join('\n');

/** Calls a server function as the page's JavaScript does, in `context`'s cookie jar. */
async function call(context, name, form) {
  const r = await context.request.post(`${server.url}/api/${name}`, {
    form,
    headers: { Origin: server.url, Accept: 'application/json' },
  });
  assert.ok(r.ok(), `${name}: ${r.status()} ${await r.text()}`);
  return r.json();
}

/** What an ordinary pair's sentence 2 says its label is (test pairs say it too). */
const truth = (task) => task.Judge.sentence2.includes('[P]');

/** Registers a worker who answers every pair given with `label(task, answered)` (answered: how
 *  many they have answered before) until the gate stops them or no pair is left. Returns their
 *  username, how many they answered and what a stop told them (null if none). */
async function judgeAs(id, prefix, label) {
  const worker = await browser.newContext();
  const username = uniqueName(prefix);
  await call(worker, 'register', { username, password: PASSWORD, password_confirmation: PASSWORD });
  let task = await call(worker, 'judge/next', { campaign_id: id });
  let answered = 0;
  let stopped = null;
  while (task.Judge && stopped === null) {
    const outcome = await call(worker, 'judge/answer', {
      campaign_id: id, assignment_id: task.Judge.assignment_id, is_paraphrase: String(label(task, answered)),
    });
    answered += 1;
    stopped = outcome.stopped ?? null;
    task = outcome.next;
  }
  await worker.close();
  return { username, answered, stopped };
}

/** Registers `count` workers, one after another, each answering every pair it is given with
 *  `label(w, task)` (w: the worker's number, from 0). Returns their usernames, in that order. */
async function judgeAll(id, count, prefix, label) {
  const names = [];
  for (let w = 0; w < count; w += 1) {
    names.push((await judgeAs(id, prefix, (task) => label(w, task))).username);
  }
  return names;
}

/** A page of `options`' size with the admin logged in, at `path`. */
async function adminPage(options, path) {
  const page = await newPage(browser, options);
  await call(page.context(), 'login', { username: 'admin', password: server.adminPassword });
  await page.goto(`${server.url}${path}`);
  return page;
}

/** The researcher dashboard of campaign `id` at `options`' size, hydrated. */
async function dashboard(options, id) {
  const page = await adminPage(options, `/research/judge/${id}`);
  await page.getByRole('table', { name: 'Workers' }).waitFor();
  await hydrated(page);
  return page;
}

async function adminContext() {
  const context = await browser.newContext();
  await call(context, 'login', { username: 'admin', password: server.adminPassword });
  return context;
}

/** Creates a judging campaign through the API (six judgments a pair and MultiPIT's minimums,
 *  unless `settings` says otherwise), imports `pairs` and `gold` (as test pairs, if given) and
 *  opens it. Returns its id. */
async function openCampaign(admin, settings, { pairs: content = PAIRS, gold = null } = {}) {
  const id = await call(admin, 'admin/create_judge_campaign', {
    instructions: 'Read both sentences.', definition: 'loose', judgments_per_pair: '6', min_judgments_per_pair: '6',
    min_test_accuracy: '0.85', min_kappa: '0.2', ...settings,
  });
  await call(admin, 'admin/import_pairs', { campaign_id: id, filename: 'pairs.csv', content, labels_are_tests: 'false' });
  if (gold) {
    await call(admin, 'admin/import_pairs', { campaign_id: id, filename: 'gold.csv', content: gold, labels_are_tests: 'true' });
  }
  await call(admin, 'admin/set_campaign_status', { campaign_id: id, status: 'open' });
  return id;
}

/** A campaign (the gate out of the way) judged by three honest workers and a fourth who
 *  answers every test pair right and says "paraphrase" to every ordinary pair. Returns the
 *  campaign's id, the admin's context and the fourth worker's username. */
async function harvestedCampaign(title) {
  const admin = await adminContext();
  const id = await openCampaign(admin, { title, test_every: '5', gate_min_judgments: '10000', gate_rule: '' }, { gold: GOLD });
  const names = await judgeAll(id, 4, 'q', (w, task) => (w === 3 && !task.Judge.sentence1.startsWith('Test ') ? true : truth(task)));
  return { id, admin, harvester: names[3] };
}

test('a worker with the test answers is flagged on the dashboard and excluded in one action', async () => {
  const { id, admin } = await harvestedCampaign('Harvest check');
  await admin.close();

  for (const [what, options] of BOTH_WIDTHS) {
    const page = await dashboard(options, id);
    // The notice says what was found and what a researcher can do; one row is marked.
    const notice = page.getByTestId('harvest-flags');
    assert.match(await notice.textContent(), /^1 worker answers the test pairs far better than the ordinary pairs \(Fisher's exact test, p below 0\.01, or answers at least 100 times likelier from someone who has the test answers and guesses the rest than from an honest worker\)/);
    assert.match(await notice.textContent(), /the gate does not stop anyone for it/);
    const flagged = page.getByRole('table', { name: 'Workers' }).locator('tbody tr').filter({ has: page.getByTestId('harvest-flag') });
    assert.equal(await flagged.count(), 1);
    // Both rates, the p-value and the likelihood ratio: every check right against half the
    // ordinary pairs.
    assert.match(await flagged.textContent(), /100% vs 50% · p (0\.\d{3}|< 0\.001) · ([\d,]+|more than a million) times likelier harvested — review/);
    assert.equal(await sidewaysScroll(page), 0, `the dashboard scrolls sideways at ${what} width`);
    if (what === 'phone') {
      // Asked first, then done; the page says what it did and the worker is stopped.
      await flagged.getByTestId('exclude').tap();
      await flagged.getByTestId('exclude-confirm').tap();
      assert.match(
        await page.getByTestId('excluded').textContent(),
        /^Excluded: 40 judgments set aside; 40 pairs went back in the queue for other workers\.$/,
      );
      // The refreshed report: no worker is offered for exclusion any more (the old rows stay
      // on screen until it arrives, and their gate column may say "stopped" too), and the
      // flagged worker's row says stopped.
      await page.getByTestId('exclude-confirm').waitFor({ state: 'detached' });
      assert.equal(await page.getByTestId('exclude-confirm').count(), 0);
      const row = page.getByRole('table', { name: 'Workers' }).locator('tbody tr').filter({ has: page.getByTestId('harvest-flag') });
      await row.filter({ hasText: /stopped/ }).waitFor();
      assert.match(await page.getByText(/Excluded after a researcher's review/).first().textContent(), /40 ordinary pairs/);
    }
    assert.deepEqual(unexpectedErrors(page), []);
    await page.context().close();
  }
});

test('a flagged worker an admin stopped can still be excluded, to free the places their judgments hold, at desktop and phone width', async () => {
  const { id, admin, harvester } = await harvestedCampaign('Harvest check, stopped first');
  // An admin stops the flagged worker before a researcher reviews them: their judgments no
  // longer count, but each still takes its pair's place.
  const overview = await call(admin, 'admin/judge_overview', { campaign_id: id });
  const worker = overview.workers.find((w) => w.username === harvester);
  assert.ok(worker, `${harvester} in ${JSON.stringify(overview.workers.map((w) => w.username))}`);
  await call(admin, 'admin/set_judge_worker_status', { campaign_id: id, user_id: worker.user_id, status: 'stopped' });
  await admin.close();

  for (const [what, options] of BOTH_WIDTHS) {
    const page = await dashboard(options, id);
    const flagged = page.getByRole('table', { name: 'Workers' }).locator('tbody tr').filter({ has: page.getByTestId('harvest-flag') });
    assert.equal(await flagged.count(), 1);
    assert.match(await flagged.textContent(), /stopped/);
    // The button is offered, and opening it says what is left to do for a stopped worker.
    assert.equal(await page.getByTestId('exclude').count(), 1);
    if (what === 'phone') {
      await flagged.getByTestId('exclude').tap();
    } else {
      await flagged.getByTestId('exclude').click();
    }
    assert.match(
      await flagged.locator('details.confirm p').textContent(),
      /^Exclude W[0-9a-f]{8}\? They are stopped, so their judgments no longer count, but 40 of them still take a pair's place\. Excluding sets them aside and those pairs go back to other workers\./,
    );
    assert.equal(await sidewaysScroll(page), 0, `the dashboard scrolls sideways at ${what} width`);
    if (what === 'phone') {
      await flagged.getByTestId('exclude-confirm').tap();
      assert.match(
        await page.getByTestId('excluded').textContent(),
        /^Excluded: 40 judgments set aside; 40 pairs went back in the queue for other workers\.$/,
      );
      // Nothing is left to exclude, and the history says who did what: the admin's stop, then
      // the researcher's exclusion.
      await page.getByTestId('exclude-confirm').waitFor({ state: 'detached' });
      assert.equal(await page.getByTestId('exclude-confirm').count(), 0);
      const history = page.getByRole('table', { name: 'Status history' });
      await history.getByText(/Excluded after a researcher's review/).first().waitFor();
      assert.match(await history.getByText(/Excluded after a researcher's review/).first().textContent(), /40 ordinary pairs/);
    }
    assert.deepEqual(unexpectedErrors(page), []);
    await page.context().close();
  }
});

test('two accounts that share their guesses are shown as a group with the evidence, at desktop and phone width', async () => {
  const admin = await adminContext();
  const id = await openCampaign(admin, { title: 'Answer rings', test_every: '0', gate_min_judgments: '10000', gate_rule: '' });
  // Four careful workers; the fifth and sixth give one guess between them, wrong on half.
  await judgeAll(id, 6, 'g', (w, task) => {
    const n = Number(task.Judge.sentence1.split(' ')[1]);
    return w >= 4 ? n % 4 < 2 : truth(task);
  });
  await admin.close();

  for (const [what, options] of BOTH_WIDTHS) {
    const page = await dashboard(options, id);
    // The card says what was found, why, and that nobody was stopped for it.
    const card = page.getByTestId('account-groups');
    assert.match(await card.textContent(), /Accounts to review together/);
    assert.match(await card.textContent(), /Nobody is stopped for it/);
    const group = card.getByTestId('account-group');
    assert.equal(await group.count(), 1);
    assert.match(
      await group.textContent(),
      /^Group 1: answer alike — W[0-9a-f]{8}, W[0-9a-f]{8}.*both parted from the other workers' majority on 20 of the 20 shared pairs where either did \(\d+\.\d expected of two workers answering on their own; p < 0\.000001\)/,
    );
    // The two rows are marked and offer exclusion; the careful workers' rows do not.
    const rows = page.getByRole('table', { name: 'Workers' }).locator('tbody tr');
    const marked = rows.filter({ has: page.getByTestId('group-mark') });
    assert.equal(await marked.count(), 2);
    assert.equal(await page.getByTestId('exclude').count(), 2);
    assert.equal(await sidewaysScroll(page), 0, `the dashboard scrolls sideways at ${what} width`);
    if (process.env.E2E_SCREENSHOTS) {
      await card.screenshot({ path: `${process.env.E2E_SCREENSHOTS}/account-groups-${what}.png` });
    }
    if (what === 'phone') {
      // Both can be excluded, one after the other: the first exclusion leaves the group.
      for (const left of [1, 0]) {
        const row = marked.filter({ has: page.getByTestId('exclude') }).first();
        await row.getByTestId('exclude').tap();
        await row.getByTestId('exclude-confirm').tap();
        await page.getByTestId('excluded').waitFor();
        assert.match(
          await page.getByTestId('excluded').textContent(),
          /^Excluded: 40 judgments set aside; 40 pairs went back in the queue for other workers\.$/,
        );
        await page.waitForFunction((n) => document.querySelectorAll('[data-testid="exclude-confirm"]').length === n, left);
      }
      assert.match(await page.getByText(/this account and another answered alike/).first().textContent(), /both parted/);
    }
    assert.deepEqual(unexpectedErrors(page), []);
    await page.context().close();
  }
});

test('the confidence gate stops a worker who answers at random and says why, at desktop and phone width', async () => {
  const admin = await adminContext();
  // The default gate: MultiPIT's minimum decided with confidence, from judgment 20.
  const id = await openCampaign(admin, { title: 'Confidence gate', test_every: '5', gate_min_judgments: '20' }, { gold: GOLD });
  // Three careful workers first; then one who is right on every other answer.
  for (let w = 0; w < 3; w += 1) {
    const { stopped } = await judgeAs(id, 'c', truth);
    assert.equal(stopped, null, 'a careful worker was stopped');
  }
  const { answered, stopped } = await judgeAs(id, 'c', (task, n) => (n % 2 === 1 ? !truth(task) : truth(task)));
  assert.match(stopped, /show an accuracy of about \d+%, at most \d+% with 70% confidence; this study needs more than 85%/);
  assert.ok(answered >= 20 && answered <= 30, `stopped at ${answered}`);
  await admin.close();

  for (const [what, options] of BOTH_WIDTHS) {
    const page = await dashboard(options, id);
    const rows = page.getByRole('table', { name: 'Workers' }).locator('tbody tr');
    assert.equal(await rows.count(), 4);
    // Each row draws the estimate against the minimum and says why, in the rule's terms.
    const stopped = rows.filter({ hasText: /so stopped/ });
    assert.equal(await stopped.count(), 1, `${what}: one worker stopped by the gate`);
    assert.match(await stopped.getByTestId('gate-standing').textContent(), /Accuracy about \d+%, at most \d+% \(70% upper bound, any number of looks\): below the minimum of 85%, so stopped\./);
    const kept = rows.filter({ hasText: /: kept(; nothing points below the minimum of 85%| until the bound falls to 85%)/ });
    assert.equal(await kept.count(), 3, `${what}: three careful workers kept`);
    assert.equal(await page.getByRole('img', { name: /^Accuracy about \d+%, at most \d+%; the minimum is 85%$/ }).count(), 4);
    // The status history gives the same numbers the worker read.
    assert.match(await page.getByRole('table', { name: 'Status history' }).textContent(), /show an accuracy of about \d+%/);
    // …under a heading that says whose words they are.
    await page.getByRole('table', { name: 'Status history' }).getByRole('columnheader', { name: 'Told the worker' }).waitFor();
    assert.equal(await sidewaysScroll(page), 0, `the dashboard scrolls sideways at ${what} width`);
    assert.deepEqual(unexpectedErrors(page), []);
    await page.context().close();
  }
});

test('the pair list gives each label with the posterior behind it, at desktop and phone width', async () => {
  const admin = await adminContext();
  // Adaptive redundancy: 3 to 6 judgments a pair, settled at 95%; the gate stays out of it.
  const id = await openCampaign(admin, {
    title: 'Labels and posteriors', min_judgments_per_pair: '3', test_every: '0', gate_min_judgments: '10000', gate_rule: '',
  }, { pairs: pairs(4) });
  // Six workers, truthful but on "Pair 0", where they split 4 to 2: the other pairs settle at
  // three votes, and Pair 0 takes all six.
  const split = [true, false, true, false, true, true];
  await judgeAll(id, 6, 'l', (w, task) => (task.Judge.sentence1.startsWith('Pair 0 ') ? split[w] : truth(task)));
  await admin.close();

  for (const [what, options] of BOTH_WIDTHS) {
    const page = await adminPage(options, `/admin/campaigns/${id}`);
    await hydrated(page);
    // The list opens on test pairs, and says how to see the rest when there are none.
    await page.getByText('No test pairs yet. Untick “Only test pairs” to see every pair.').waitFor();
    await page.getByLabel('Only test pairs').uncheck();
    const rows = page.getByRole('table', { name: 'Pairs' }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 4);
    for (let i = 1; i < 4; i += 1) {
      const label = i % 2 ? 'not paraphrase' : 'paraphrase';
      const text = await rows.filter({ hasText: `Pair ${i} says one thing.` }).textContent();
      assert.match(text, new RegExp(`\\d / 3 · ${label} \\(posterior (0\\.9\\d|1\\.00)\\)`), `${what}: ${text}`);
    }
    // The split pair: its label if the posterior reached 95% at the maximum, else unresolved
    // with the posterior of "paraphrase".
    const splitText = await rows.filter({ hasText: 'Pair 0 says one thing.' }).textContent();
    assert.match(splitText, /4 \/ 6 · (paraphrase \(posterior (0\.9\d|1\.00)\)|unresolved \(paraphrase at 0\.\d\d\))/, `${what}: ${splitText}`);
    assert.equal(await sidewaysScroll(page), 0, `the campaign page scrolls sideways at ${what} width`);
    assert.deepEqual(unexpectedErrors(page), []);
    await page.context().close();
  }
});

test('the kappa check stops a worker whose agreement is clearly below the minimum, and the worker and the dashboard read why, at desktop and phone width', async () => {
  const admin = await adminContext();
  // An accuracy bar the worker below passes (50%) and a kappa bar they do not (0.8); the gate
  // applies from judgment 60, so the check's first look is at judgment 100.
  const id = await openCampaign(admin, {
    title: 'Kappa check', test_every: '0', min_test_accuracy: '0.5', min_kappa: '0.8', gate_min_judgments: '60',
  }, { pairs: pairs(110) });
  // Three careful workers; then one who is wrong on every third answer: right about two times
  // in three, kappa about 0.33.
  await judgeAll(id, 3, 'k', (_, task) => truth(task));
  const { username, answered, stopped } = await judgeAs(id, 'k', (task, n) => (n % 3 === 2 ? !truth(task) : truth(task)));
  // Not at the gate's first judgment (60): at the check's first look, judgment 100.
  assert.equal(answered, 100, `stopped at ${answered}: ${stopped}`);
  const told = /Your answers agree too little with other workers' majority: kappa 0\.\d\d, at most 0\.\d\d with 99\.6% confidence; this study needs more than 0\.80\.$/;
  assert.match(stopped, told);
  const overview = await call(admin, 'admin/judge_overview', { campaign_id: id });
  await admin.close();

  // The worker reads the same words on the judging page.
  const workerPage = await newPage(browser, phone(390));
  await call(workerPage.context(), 'login', { username, password: PASSWORD });
  await workerPage.goto(`${server.url}/judge/${id}`);
  await workerPage.getByRole('heading', { name: 'Thank you' }).waitFor();
  await workerPage.getByRole('status').filter({ hasText: stopped }).waitFor();
  assert.equal(await sidewaysScroll(workerPage), 0, 'the stopped page scrolls sideways on a phone');
  assert.deepEqual(unexpectedErrors(workerPage), []);
  await workerPage.context().close();
  assert.ok(overview.workers.some((w) => w.username === username && w.status === 'stopped'));

  for (const [what, options] of BOTH_WIDTHS) {
    // The campaign page names the looks this campaign takes.
    const campaign = await adminPage(options, `/admin/campaigns/${id}`);
    await campaign.getByText(/or kappa below 0\.80 at judgment 100, 200, 400, …/).waitFor();
    assert.equal(await sidewaysScroll(campaign), 0, `the campaign page scrolls sideways at ${what} width`);
    assert.deepEqual(unexpectedErrors(campaign), []);
    await campaign.context().close();
    // The dashboard: the stopped worker's row gives the look, its bound and the minimum.
    const page = await dashboard(options, id);
    const rows = page.getByRole('table', { name: 'Workers' }).locator('tbody tr');
    assert.equal(await rows.count(), 4);
    const stoppedRow = rows.filter({ hasText: /so stopped/ });
    assert.equal(await stoppedRow.count(), 1, `${what}: one worker stopped by the gate`);
    assert.match(
      await stoppedRow.getByTestId('gate-standing').textContent(),
      /but kappa against the others' majority is 0\.\d\d, at most 0\.\d\d \(99\.6% bound at its look at judgment 100, over 100 pairs\), below the minimum of 0\.80, so stopped\./,
    );
    assert.equal(await rows.filter({ hasText: /: kept/ }).count(), 3, `${what}: three careful workers kept`);
    // The status history keeps what the worker was told.
    assert.match(await page.getByRole('table', { name: 'Status history' }).textContent(), /agree too little with other workers' majority: kappa 0\.\d\d/);
    assert.equal(await sidewaysScroll(page), 0, `the dashboard scrolls sideways at ${what} width`);
    assert.deepEqual(unexpectedErrors(page), []);
    await page.context().close();
  }
});
