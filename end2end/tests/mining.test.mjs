// Mining in a real browser: an admin imports a corpus from a file, runs MSRP's L12 miner, watches
// its progress bar reach 100%, reads a sample, deploys 10 candidates to a judging campaign and
// finds them there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, unexpectedErrors, loginAdmin } from '../support.mjs';

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

// Thirty rewordings of one sentence (L12 pairs them) among 12,000 unrelated sentences of twenty
// words (many pairs to examine, so the run takes a moment; too far apart to be candidates).
function corpus() {
  const lines = [];
  for (let i = 0; i < 30; i++) {
    lines.push(`The city council met on day ${i} to discuss the budget for the new park.`);
  }
  let state = 12345;
  for (let i = 0; i < 12000; i++) {
    const words = [];
    for (let w = 0; w < 20; w++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      words.push(`w${(state >>> 12) % 3000}`);
    }
    lines.push(words.join(' ') + '.');
  }
  return lines.join('\n');
}

test('an admin mines a corpus with L12 and deploys ten candidates to a campaign', async () => {
  const admin = await newPage(browser);
  await loginAdmin(admin, server);
  await admin.getByRole('link', { name: 'Manage campaigns' }).click();
  await admin.waitForFunction(() => !!window.__paracrowd_hydrated);
  const form = admin.locator('form').filter({ hasText: 'Paraphrase definition' });
  await form.getByLabel('Title').fill('Mined pairs');
  await form.getByRole('button', { name: 'Create judging campaign' }).click();
  await admin.getByRole('heading', { name: 'Mined pairs' }).waitFor();
  const campaignUrl = admin.url();

  await admin.getByRole('link', { name: 'Mining' }).click();
  await admin.getByRole('heading', { name: 'Mining', exact: true }).waitFor();
  await admin.waitForFunction(() => !!window.__paracrowd_hydrated);
  await admin.getByText('No corpus yet').waitFor();
  await admin.getByLabel('File').setInputFiles({ name: 'council.txt', mimeType: 'text/plain', buffer: Buffer.from(corpus()) });
  await admin.getByLabel('Shape').selectOption('sentences');
  await admin.getByRole('button', { name: 'Import corpus' }).click();
  const imported = admin.getByTestId('corpus-result');
  await imported.waitFor();
  assert.match(await imported.textContent(), /council\.txt: 1 clusters, 12030 documents, 12030 sentences/);

  await admin.getByLabel('Method').selectOption('l12');
  assert.equal(await admin.getByLabel('Word edit distance, at most').inputValue(), '12');
  await admin.getByRole('button', { name: 'Start run' }).click();
  const row = admin.getByRole('table', { name: 'Runs' }).locator('tbody tr').first();
  await row.waitFor();
  // The bar fills as the page polls; it ends at 100% with the run finished.
  await row.getByTestId('run-status').filter({ hasText: 'finished' }).waitFor({ timeout: 120_000 });
  assert.equal((await row.getByTestId('run-progress').textContent()).trim(), '100%');
  assert.equal(await row.locator('progress').getAttribute('value'), '100.0');
  const candidates = Number(await row.getByTestId('run-candidates').textContent());
  assert.ok(candidates >= 30 && candidates < 1000, `${candidates} candidates`);

  await row.getByRole('button', { name: 'Candidates' }).click();
  const sample = admin.getByRole('table', { name: 'Candidates' });
  await sample.waitFor();
  assert.match(await sample.locator('tbody tr').first().textContent(), /city council met on day/);
  await admin.getByLabel('Which').selectOption('sample');
  await admin.getByLabel('How many').fill('10');
  await admin.getByRole('button', { name: 'Deploy' }).click();
  await admin.getByTestId('deploy-result').filter({ hasText: 'Added 10 pairs' }).waitFor();

  await admin.goto(campaignUrl);
  await admin.getByRole('heading', { name: 'Mined pairs' }).waitFor();
  assert.equal(await admin.getByTestId('items').textContent(), '10');
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();
});
