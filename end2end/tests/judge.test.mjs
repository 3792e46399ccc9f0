// The MultiPIT judging task in a real browser: an admin creates a judging campaign and uploads
// pairs and gold test pairs from files; a worker judges ten pairs with the keyboard alone,
// misses a test pair, sees the right answer and its explanation, and goes on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  startServer, launchBrowser, newPage, unexpectedErrors, loginAdmin, registerWorker, uploadFile, hydrated,
  newCampaignForm, createCampaign, openToWorkers,
} from '../support.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Ordinary pairs carry their true label in sentence 2 so the simulated worker can answer.
const PAIRS = ['sentence1,sentence2']
  .concat(Array.from({ length: 30 }, (_, i) => `Pair ${i} says one thing.,Pair ${i} says it again [${i % 2 ? 'N' : 'P'}].`))
  .join('\n');
const GOLD = ['sentence1,sentence2,label,explanation']
  .concat(Array.from({ length: 6 }, (_, i) => `Test ${i} says one thing.,Test ${i} says it again [${i % 2 ? 'P' : 'N'}].,${i % 2},Because check ${i} is ${i % 2 ? 'a paraphrase' : 'not a paraphrase'}.`))
  .join('\n');

/** The admin's form for a new judging campaign, its title filled in. */
function judgingForm(admin, title) {
  return newCampaignForm(admin, server, 'judging', title);
}

test('an admin sets up a judging campaign and a worker judges ten pairs with the keyboard', async () => {
  const admin = await newPage(browser);
  const form = await judgingForm(admin, 'Tweet pairs');
  await form.getByLabel('Paraphrase definition').selectOption('strict');
  // A second's minimum display, so the double press below is well inside it on a busy machine.
  await form.getByLabel('Ignore answers faster than (ms)').fill('1000');
  await createCampaign(admin, form, 'judging', 'Tweet pairs');
  // The test-pairs checkbox sits beside its words, not stretched across the form.
  const box = await admin.getByLabel(/Labeled rows are hidden test pairs/).boundingBox();
  const label = await admin.locator('label.check').filter({ hasText: 'Labeled rows are hidden test pairs' }).boundingBox();
  assert.ok(box.width < 40 && Math.abs(box.x - label.x) < 8, `checkbox ${JSON.stringify(box)} in its label ${JSON.stringify(label)}`);
  assert.match(await uploadFile(admin, 'pairs.csv', PAIRS), /imported 30 pairs \(0 test pairs/);
  assert.match(await uploadFile(admin, 'gold.csv', GOLD, { asTests: true }), /imported 6 pairs \(6 test pairs/);
  // A bad file names its line and stores nothing.
  await admin.getByLabel('File').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('sentence1,sentence2,label\na,b,1\nc,d,maybe\n') });
  await admin.getByRole('button', { name: 'Import', exact: true }).click();
  await admin.getByText(/line 3: the label `maybe`/).waitFor();
  await openToWorkers(admin);
  assert.equal(await admin.getByTestId('items').textContent(), '36');

  const page = await newPage(browser);
  const name = await registerWorker(page, server, 'judge');
  await page.getByRole('link', { name: 'Tweet pairs' }).click();
  await page.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
  await hydrated(page);
  // The quality rule is said before the first pair.
  assert.match(await page.getByTestId('quality-rule').textContent(), /one pair in every 5 is a check question/);
  // The definition is one click away.
  await page.getByRole('button', { name: 'Show the definition' }).click();
  await page.getByTestId('definition').getByText('Definition (strict)').waitFor();

  let missed = 0;
  for (let n = 0; n < 10; n += 1) {
    assert.equal(await page.getByTestId('judged').textContent(), String(n));
    const s1 = await page.getByLabel('Sentence 1').textContent();
    const s2 = await page.getByLabel('Sentence 2').textContent();
    const isTest = s1.startsWith('Test');
    // Right on ordinary pairs, wrong on test pairs (the tags stand in for a careless worker).
    const paraphrase = isTest ? !s2.includes('[P]') : s2.includes('[P]');
    // Reading: an answer to a pair on screen for less than the campaign's minimum (1 s here,
    // 300 ms by default) is ignored, as the double press at the end shows.
    await page.waitForTimeout(1050);
    await page.keyboard.press(paraphrase ? '1' : 'ArrowRight');
    const alert = page.getByRole('alertdialog');
    const moved = page.getByTestId('judged').filter({ hasText: new RegExp(`^${n + 1}$`) });
    await Promise.race([alert.waitFor(), moved.waitFor()]);
    if (await alert.count()) {
      missed += 1;
      const right = paraphrase ? 'Not paraphrase' : 'Paraphrase';
      assert.match(await alert.textContent(), new RegExp(`the answer is: ${right}\\.`));
      assert.match(await page.getByTestId('explanation').textContent(), /^Because check \d is (not )?a paraphrase\.$/);
      await page.keyboard.press('Enter');
      await moved.waitFor();
    }
  }
  assert.equal(missed, 2, 'one test pair in every five, each answered wrongly');
  // Two missed checks of two: a gentle warning, long before the gate applies.
  assert.match(await page.getByTestId('gate-warning').textContent(), /answered 0 of 2 check questions as expected/);

  // The admin sees the worker's ten judgments.
  await admin.reload();
  const row = admin.getByRole('table', { name: 'Workers' }).locator(`tr[data-username="${name}"]`);
  await row.waitFor();
  assert.match(await row.textContent(), new RegExp(`^${name}10`));
  // The agreement dashboard draws its charts on the server and hydrates cleanly.
  const id = admin.url().split('/').pop();
  await admin.goto(`${server.url}/research/judge/${id}`);
  await admin.getByRole('table', { name: 'Agreement' }).waitFor();
  // No pair has its six judgments yet: words, not a chart of zeros.
  await admin.getByTestId('no-complete-pairs').waitFor();
  assert.equal(await admin.locator('svg.chart.votes').count(), 0);
  await hydrated(admin);
  const workerRows = admin.getByRole('table', { name: 'Workers' }).locator('tbody tr');
  assert.equal(await workerRows.count(), 1);
  // Every judgment counted (ten, eight of them trusted ordinary ones the statistics use), and
  // two missed checks of two flagged whatever the gate says.
  assert.match(await workerRows.first().textContent(), /^W[0-9a-f]{8}active — low test accuracy10 \(8 counted\)/);

  // The export page: statistics for the chosen options, then the worker's judgments as a file.
  await admin.goto(`${server.url}/admin/campaigns/${id}`);
  await admin.getByRole('link', { name: 'Export dataset' }).click();
  await admin.getByRole('heading', { name: 'Export: Tweet pairs' }).waitFor();
  await hydrated(admin);
  assert.match(await admin.getByTestId('export-counts').textContent(), /^36 pairs, 10 judgments \(10 trusted\)$/);
  // The rows a default export leaves out, and why.
  assert.match(await admin.getByTestId('export-unlabelled').textContent(),
    /^6 of 36 pairs have a label by vote: 30 have fewer trusted judgments than each pair needs and 0 are unresolved .* Their rows are left out;/);
  await admin.getByLabel('Unresolved pairs').selectOption('keep');
  await admin.getByTestId('show-stats').click();
  await admin.waitForURL(/unresolved=keep/);
  const stats = admin.getByRole('table', { name: 'Dataset statistics' });
  await stats.waitFor();
  assert.match(await admin.getByTestId('export-unlabelled').textContent(), /Their rows are kept with an empty label\.$/);
  // 36 pairs kept (none has its 6 judgments: all unresolved but the 6 gold test pairs).
  assert.equal(await stats.locator('tr', { hasText: /^Pairs/ }).locator('td[data-part="all"]').textContent(), '36');
  assert.equal(await stats.locator('tr', { hasText: /^Gold \(test\) pairs/ }).locator('td[data-part="all"]').textContent(), '6');
  await admin.getByLabel('Rows').selectOption('judgments');
  const [download] = await Promise.all([
    admin.waitForEvent('download'),
    admin.getByTestId('download').click(),
  ]);
  assert.match(download.suggestedFilename(), /^judge-[0-9a-f-]{36}-judgments-all\.csv$/);
  // The page downloaded it itself (hydrated) and says so, with a full progress bar.
  await admin.getByTestId('download-status').getByText(/^Done: judge-.*\.csv saved \(11 lines\)\.$/).waitFor();
  assert.equal(await admin.locator('progress').getAttribute('value'), '10');
  const lines = (await readFile(await download.path(), 'utf8')).trim().split(/\r?\n/);
  assert.equal(lines[0], 'pair_id,sentence1,sentence2,worker,label,seconds,time,trusted,gold,group,split');
  assert.equal(lines.length, 11, 'ten judgments');
  assert.equal(lines.filter((l) => l.includes(',1,0,,') || l.includes(',1,1,,')).length, 10, 'all trusted');
  assert.ok(!lines.join('\n').includes(name), 'workers appear under pseudonyms');

  // A quick double press: the second press, meant for the same pair, reaches
  // the next one as it appears. It is ignored, the page says so, and the pair waits for a real
  // answer.
  // Right answers only (a check question answered right brings no dialog).
  const rightKey = async () => ((await page.getByLabel('Sentence 2').textContent()).includes('[P]') ? '1' : '2');
  await page.waitForTimeout(1050);
  const shownBefore = await page.getByLabel('Sentence 1').textContent();
  await page.keyboard.press(await rightKey());
  await page.getByTestId('judged').filter({ hasText: /^11$/ }).waitFor();
  await page.keyboard.press('1');
  await page.getByTestId('too-quick').waitFor();
  await page.waitForTimeout(300);
  assert.equal(await page.getByTestId('judged').textContent(), '11', 'the second press answered nothing');
  assert.notEqual(await page.getByLabel('Sentence 1').textContent(), shownBefore);
  await page.waitForTimeout(1050);
  await page.keyboard.press(await rightKey());
  await page.getByTestId('judged').filter({ hasText: /^12$/ }).waitFor();

  // Without JavaScript the answers are a plain form: each press posts the answer and the page
  // comes back with the next pair, and a missed check question is explained, with a link on.
  // Controls that need the script (the definition's toggle) are hidden rather than dead.
  const plain = await newPage(browser, { javaScriptEnabled: false });
  await registerWorker(plain, server, 'nojs');
  await plain.getByRole('link', { name: 'Tweet pairs' }).click();
  await plain.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
  assert.equal(await plain.getByRole('button', { name: 'Show the definition' }).isVisible(), false);
  let plainMissed = false;
  for (let n = 0; n < 7; n += 1) {
    assert.equal(await plain.getByTestId('judged').textContent(), String(n));
    const isTest = (await plain.getByLabel('Sentence 1').textContent()).startsWith('Test');
    const right = (await plain.getByLabel('Sentence 2').textContent()).includes('[P]');
    const miss = isTest && !plainMissed;
    await plain.getByRole('button', { name: (miss ? !right : right) ? /^Paraphrase/ : /^Not paraphrase/ }).click();
    if (miss) {
      plainMissed = true;
      await plain.getByRole('heading', { name: 'Check question' }).waitFor();
      assert.match(await plain.locator('.feedback').textContent(), new RegExp(`the answer is: ${right ? 'Paraphrase' : 'Not paraphrase'}\\.`));
      assert.match(await plain.getByTestId('explanation').textContent(), /^Because check \d is (not )?a paraphrase\.$/);
      await plain.getByRole('link', { name: 'Continue' }).click();
    }
    // The count is the server's: an answer stored twice would show here.
    await plain.getByTestId('judged').filter({ hasText: new RegExp(`^${n + 1}$`) }).waitFor();
  }
  assert.ok(plainMissed, 'a check question came within seven pairs');

  // With JavaScript, on a network slow to bring the page's script: a press before it arrives is
  // the plain form's, answered and counted once; once the script runs, answers are its own.
  const early = await newPage(browser);
  await registerWorker(early, server, 'early');
  await early.getByRole('link', { name: 'Tweet pairs' }).click();
  await early.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
  const judgeUrl = early.url();
  let heldBack = 0;
  await early.route('**/*.wasm', async (route) => {
    heldBack += 1;
    await new Promise((resolve) => { setTimeout(resolve, 4000); });
    await route.continue();
  });
  await early.goto(judgeUrl);
  const earlyRight = (await early.getByLabel('Sentence 2').textContent()).includes('[P]');
  assert.equal(await early.evaluate(() => !!window.__paracrowd_hydrated), false, 'pressed before the script ran');
  await early.getByRole('button', { name: earlyRight ? /^Paraphrase/ : /^Not paraphrase/ }).click();
  await early.getByTestId('judged').filter({ hasText: /^1$/ }).waitFor();
  assert.ok(heldBack >= 1, 'the script was held back');
  await early.unrouteAll({ behavior: 'ignoreErrors' });
  await hydrated(early);
  await early.waitForTimeout(1050);
  const secondRight = (await early.getByLabel('Sentence 2').textContent()).includes('[P]');
  await early.keyboard.press(secondRight ? '1' : '2');
  await early.getByTestId('judged').filter({ hasText: /^2$/ }).waitFor();
  assert.deepEqual(unexpectedErrors(early), []);
  await early.context().close();
  const plainAdmin = await newPage(browser, { javaScriptEnabled: false });
  await loginAdmin(plainAdmin, server);
  await plainAdmin.goto(`${server.url}/admin/campaigns/${id}`);
  await plainAdmin.getByRole('heading', { name: 'Tweet pairs' }).waitFor();
  assert.ok(await plainAdmin.locator('noscript p', { hasText: 'Uploading needs JavaScript' }).isVisible());
  assert.equal(await plainAdmin.getByLabel('File').isVisible(), false, 'no dead upload form');
  await plain.context().close();
  await plainAdmin.context().close();
  assert.deepEqual(unexpectedErrors(page), []);
  assert.deepEqual(unexpectedErrors(admin), []);
  await page.context().close();
  await admin.context().close();
});

test('a worker whose last pair someone else holds is asked to wait, then told nothing is left', async () => {
  const admin = await newPage(browser);
  const form = await judgingForm(admin, 'One pair');
  await form.getByLabel('Judgments per pair, at most').fill('1');
  await form.getByLabel('Judgments per pair, at least').fill('1');
  await form.getByLabel('One test pair in every').fill('0');
  await createCampaign(admin, form, 'judging', 'One pair');
  assert.match(await uploadFile(admin, 'one.csv', 'sentence1,sentence2\nOnly one.,Just one.\n'), /imported 1 pairs/);
  await openToWorkers(admin);

  // The first worker holds the only pair.
  const first = await newPage(browser);
  await registerWorker(first, server, 'holder');
  await first.getByRole('link', { name: 'One pair' }).click();
  await first.getByLabel('Sentence 1').filter({ hasText: 'Only one.' }).waitFor();
  await hydrated(first);
  // The second is asked to wait for it, not told the study is over.
  const second = await newPage(browser);
  await registerWorker(second, server, 'waiter');
  await second.getByRole('link', { name: 'One pair' }).click();
  await second.getByRole('heading', { name: 'Please wait a moment' }).waitFor();
  await hydrated(second);
  await second.getByTestId('look-again').click();
  await second.getByRole('heading', { name: 'Please wait a moment' }).waitFor();
  // The pair is judged: now nothing is left for the second worker.
  await first.waitForTimeout(400);
  await first.keyboard.press('1');
  await first.getByRole('heading', { name: 'Nothing to judge right now' }).waitFor();
  await second.getByTestId('look-again').click();
  await second.getByRole('heading', { name: 'Nothing to judge right now' }).waitFor();
  assert.deepEqual(unexpectedErrors(first).concat(unexpectedErrors(second)), []);
});
