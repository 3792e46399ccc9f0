// The APT writing task in a real browser with the real default models: write, Check (and
// Ctrl+Enter), see the verdict and reward, Submit, see the running total change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, newPage, uniqueName, unexpectedErrors, uploadFile, PASSWORD, phone,
  accessibilityProblems, hydrated, registerWorker, newCampaignForm, createCampaign, openToWorkers,
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

const SOURCE = 'The company said its profits rose sharply last year.';
// The default stand-in models judge this rewrite mutually implicative with BLEURT ~0.32: 3 cents.
const PAYING = 'According to the firm, last year brought a steep increase in earnings.';

// The same walk on a desktop and on a 390x844 phone (annotator pages' tests at both).
for (const [device, options, title] of [
  ['desktop', {}, 'Rewrite study'],
  ['a 390 px phone', phone(390), 'Rewrite study on a phone'],
]) {
  test(`a worker writes, checks, sees the reward, submits and sees the total change (${device})`, () => writeCheckSubmit(options, title));
}

async function writeCheckSubmit(workerOptions, title) {
  // An admin creates an APT campaign in the browser and uploads its sentences as a file.
  const admin = await newPage(browser);
  await createCampaign(admin, await newCampaignForm(admin, server, 'writing', title), 'writing', title);
  assert.match(
    await uploadFile(admin, 'sources.tsv', `text\torigin\n${SOURCE}\tmsrp\n${SOURCE}\tmsrp\n`),
    /imported 1 sentences; skipped 1 repeated in the file/,
  );
  const id = await openToWorkers(admin);

  // A worker finds it on the home page.
  const page = await newPage(browser, workerOptions);
  const name = uniqueName('writer');
  await page.goto(`${server.url}/register`);
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { name: 'Rewrite the sentence' }).waitFor();
  await hydrated(page);
  await page.getByLabel('Given sentence').getByText(SOURCE).waitFor();
  assert.equal(await page.getByTestId('total').textContent(), '$0.00');
  const submit = page.getByRole('button', { name: /^Submit( —|$)/ });
  assert.equal(await submit.isDisabled(), true, 'no Submit before a Check');

  // A too-close rewrite, checked with Ctrl+Enter.
  const box = page.getByLabel('Your sentence');
  await box.fill('The firm said its profits rose sharply last year.');
  await box.press('Control+Enter');
  const result = page.getByTestId('check-result');
  await result.waitFor();
  assert.match(await result.textContent(), /Too similar.*Reward: \$0\.00/);
  // Submit says what it pays, and a $0.00 Submit asks first.
  assert.equal(await submit.textContent(), 'Submit — earns $0.00');
  await submit.click();
  const ask = page.getByRole('alertdialog', { name: 'Submit for nothing?' });
  await ask.getByText('This sentence earns nothing ($0.00).').waitFor();
  assert.deepEqual(await accessibilityProblems(page, 'the $0 Submit question'), []);
  await ask.getByRole('button', { name: 'Keep writing' }).click();
  await ask.waitFor({ state: 'detached' });
  await page.getByLabel('Given sentence').getByText(SOURCE).waitFor();
  assert.equal(await page.getByTestId('total').textContent(), '$0.00', 'nothing was submitted');

  // Editing the text withdraws Submit until the new text is checked.
  await box.fill(PAYING);
  await page.getByText('Check again to see its reward').waitFor();
  assert.equal(await submit.isDisabled(), true);
  // Typed text survives a reload (kept in the browser until submitted).
  await page.reload();
  await hydrated(page);
  await page.waitForFunction((t) => document.getElementById('attempt')?.value === t, PAYING);
  assert.equal(await submit.isDisabled(), true);
  await page.getByRole('button', { name: 'Check' }).click();
  await page.getByText('Same meaning, different enough').waitFor();
  const reward = await page.getByTestId('reward').textContent();
  assert.notEqual(reward, '$0.00', 'this rewrite earns something with the default models');
  assert.equal(await submit.textContent(), `Submit — earns ${reward}`);

  await submit.click();
  // The only sentence is done: the page moves on, says what the Submit earned and shows the
  // new total.
  await page.getByRole('heading', { name: 'No sentences left' }).waitFor();
  assert.equal(await page.getByTestId('submitted').textContent(), `Submitted: earned ${reward}, total ${reward}.`);
  await page.getByText(reward, { exact: true }).waitFor();
  // The researcher's view shows the Check and the submission.
  await admin.goto(`${server.url}/research/apt/${id}`);
  await admin.getByRole('heading', { name: 'Table 2' }).waitFor();
  await admin.locator('svg.chart rect').first().waitFor();
  const row = admin.getByRole('table', { name: 'Table 2' }).getByRole('row').nth(1);
  assert.match(await row.textContent(), /^2/, 'two Checks recorded');
  assert.deepEqual(unexpectedErrors(page), []);
  assert.deepEqual(unexpectedErrors(admin), []);
  await page.context().close();
  await admin.context().close();
}

test('without JavaScript a worker checks and submits with the plain form, the text kept across the Check', async () => {
  const admin = await newPage(browser);
  await createCampaign(admin, await newCampaignForm(admin, server, 'writing', 'Plain writing'), 'writing', 'Plain writing');
  await uploadFile(admin, 'sources.tsv', `text\torigin\n${SOURCE}\tmsrp\n`);
  await openToWorkers(admin);
  await admin.context().close();

  const page = await newPage(browser, { javaScriptEnabled: false });
  await registerWorker(page, server, 'plainwriter');
  await page.getByRole('link', { name: 'Plain writing', exact: true }).click();
  await page.getByRole('heading', { name: 'Rewrite the sentence' }).waitFor();
  const submit = page.getByRole('button', { name: /^Submit( —|$)/ });
  assert.equal(await submit.isDisabled(), true, 'no Submit before a Check');
  // A refused Check comes back with the text as it was typed and the rule's reason.
  const copied = SOURCE.toUpperCase();
  await page.getByLabel('Your sentence').fill(copied);
  await page.getByRole('button', { name: 'Check' }).click();
  await page.getByText('That is the given sentence itself; write it differently.').waitFor();
  assert.equal(await page.getByLabel('Your sentence').inputValue(), copied, 'the text kept');
  assert.equal(await submit.isDisabled(), true, 'nothing checked to submit');
  await page.getByLabel('Your sentence').fill(PAYING);
  await page.getByRole('button', { name: 'Check' }).click();
  // The page comes back with the Check's result, and the text that was checked still in the box.
  await page.getByText('Same meaning, different enough').waitFor();
  assert.equal(await page.getByLabel('Your sentence').inputValue(), PAYING);
  const reward = await page.getByTestId('reward').textContent();
  assert.notEqual(reward, '$0.00');
  assert.equal(await submit.textContent(), `Submit — earns ${reward}`);
  await submit.click();
  await page.getByRole('heading', { name: 'No sentences left' }).waitFor();
  await page.getByText(reward, { exact: true }).waitFor();
  await page.context().close();
});
