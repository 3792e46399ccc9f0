// Mining in a real browser: an admin imports a corpus from a file, runs MSRP's L12 miner, watches
// its progress bar reach 100%, reads a sample, deploys 10 candidates to a judging campaign and
// finds them there; then runs MultiPIT's group selection and ParaSCI's embedding miner from the
// form (the embedding run uses the server's real model).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, newPage, unexpectedErrors, loginAdmin, accessibilityProblems, hydrated,
  newCampaignForm, createCampaign,
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
  await createCampaign(admin, await newCampaignForm(admin, server, 'judging', 'Mined pairs'), 'judging', 'Mined pairs');
  const campaignUrl = admin.url();

  await admin.getByRole('link', { name: 'Mining' }).click();
  await admin.getByRole('heading', { name: 'Mining', exact: true }).waitFor();
  await hydrated(admin);
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
  // An L12 run's table shows the numbers L12 gives, not F2's or the embedding miner's.
  const headings = await sample.locator('thead th').allTextContents();
  assert.deepEqual(headings, ['Sentence 1', 'Sentence 2', 'Cluster', 'Edit distance', 'Length ratio']);
  // The page with a finished run and its candidates passes axe-core.
  assert.deepEqual(await accessibilityProblems(admin, 'the mining page with a run\'s candidates'), []);
  // A sample is the default; "all" of a run has to be chosen.
  assert.equal(await admin.getByLabel('Which').inputValue(), 'sample');
  await admin.getByLabel('How many').fill('10');
  await admin.getByRole('button', { name: 'Deploy' }).click();
  await admin.getByTestId('deploy-result').filter({ hasText: 'Added 10 pairs' }).waitFor();

  await admin.goto(campaignUrl);
  await admin.getByRole('heading', { name: 'Mined pairs' }).waitFor();
  assert.equal(await admin.getByTestId('items').textContent(), '10');
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();
});

// Forty tweets sharing a URL, worded a little differently.
function tweets() {
  const subjects = ['komodo dragon genome', 'dragon genome', 'komodo genome', 'the komodo dragon'];
  const verbs = ['sequenced by scientists', 'decoded at last', 'mapped in full', 'read by researchers'];
  const lines = [];
  for (let i = 0; i < 40; i++) {
    const text = `${subjects[i % 4]} ${verbs[Math.floor(i / 4) % 4]} story ${i}`;
    lines.push(JSON.stringify({ url: 'https://example.org/komodo', text }));
  }
  return lines.join('\n');
}

test('an admin runs MultiPIT group selection and the embedding miner from the form', async () => {
  const admin = await newPage(browser);
  await loginAdmin(admin, server);
  await admin.goto(`${server.url}/admin/mining`);
  await admin.getByRole('heading', { name: 'Mining', exact: true }).waitFor();
  await hydrated(admin);
  await admin.getByLabel('File').setInputFiles({ name: 'tweets.jsonl', mimeType: 'application/json', buffer: Buffer.from(tweets()) });
  await admin.getByLabel('Shape').selectOption('grouped');
  await admin.getByRole('button', { name: 'Import corpus' }).click();
  await admin.getByTestId('corpus-result').filter({ hasText: 'tweets.jsonl: 1 clusters' }).waitFor();
  await admin.getByLabel('Corpus').selectOption({ label: 'tweets.jsonl (40 sentences)' });

  // Group selection: the paper's parameters are on the form.
  await admin.getByLabel('Method').selectOption('group');
  assert.equal(await admin.getByLabel('Pairs per seed').inputValue(), '10');
  assert.equal(await admin.getByLabel('Follow-up by paraphrases found (min-max:pairs)').inputValue(), '4-6:20, 7-9:30, 10-12:40, 13-20:50');
  await admin.getByRole('button', { name: 'Start run' }).click();
  const runs = admin.getByRole('table', { name: 'Runs' });
  const group = runs.locator('tbody tr').filter({ hasText: 'GROUP' });
  await group.getByTestId('run-status').filter({ hasText: 'finished' }).waitFor({ timeout: 60_000 });
  const first = Number(await group.getByTestId('run-candidates').textContent());
  // First batch (19-20) plus the follow-up reserve (50).
  assert.ok(first >= 69 && first <= 70, `${first} candidates`);
  await group.getByRole('button', { name: 'Candidates' }).click();
  await admin.getByText("No group's first batch has been fully judged yet.").waitFor();

  // Embeddings through the server's model; a cosine threshold outside [-1, 1] is refused.
  await admin.getByLabel('Method').selectOption('embedding');
  assert.equal(await admin.getByLabel('Cosine similarity, at least').inputValue(), '0.931');
  await admin.getByLabel('Cosine similarity, at least').fill('0.9');
  await admin.getByRole('button', { name: 'Start run' }).click();
  const emb = runs.locator('tbody tr').filter({ hasText: 'EMBEDDING' });
  await emb.getByTestId('run-status').filter({ hasText: 'finished' }).waitFor({ timeout: 120_000 });
  assert.equal((await emb.getByTestId('run-progress').textContent()).trim(), '100%');
  assert.ok(Number(await emb.getByTestId('run-candidates').textContent()) > 0);
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();
});
