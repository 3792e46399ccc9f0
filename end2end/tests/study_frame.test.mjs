// A study inside Mechanical Turk's frame: MTurk shows an external question in an
// iframe on its own site, so the pages must allow that frame (and only that one), the session
// cookie must be kept in a cross-site frame, and the finished worker's page must post MTurk's
// externalSubmit form with the assignment id. Here a page on another site (localhost, while the
// app is 127.0.0.1) stands in for MTurk's; the app is told it may frame the study
// (PARACROWD_FRAME_ANCESTORS) and runs with Secure cookies, as behind HTTPS (browsers treat
// loopback addresses as secure). The form's post to workersandbox.mturk.com is caught.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  startServer, launchBrowser, newPage, unexpectedErrors, loginAdmin, uploadFile, hydrated,
} from '../support.mjs';

let server;
let browser;
let parent;
let parentUrl;

const PAIRS = ['sentence1,sentence2']
  .concat(Array.from({ length: 6 }, (_, i) => `The ferry left at ${i} o'clock.,At ${i} o'clock the ferry departed.`))
  .join('\n');

before(async () => {
  parent = http.createServer();
  await new Promise((resolve) => parent.listen(0, '127.0.0.1', resolve));
  parentUrl = `http://localhost:${parent.address().port}`;
  server = await startServer({
    PARACROWD_SECURE_COOKIES: 'true',
    PARACROWD_FRAME_ANCESTORS: parentUrl,
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  parent?.close();
});

test('a worker takes the HIT inside the frame, finishes, and the HIT is submitted to MTurk', async () => {
  const admin = await newPage(browser);
  await loginAdmin(admin, server);
  await admin.getByRole('link', { name: 'Manage campaigns' }).click();
  await hydrated(admin);
  const form = admin.locator('form').filter({ hasText: 'Paraphrase definition' });
  await form.getByLabel('Title').fill('Ferry pairs');
  await form.getByRole('button', { name: 'Create judging campaign' }).click();
  await admin.getByRole('heading', { name: 'Ferry pairs' }).waitFor();
  await uploadFile(admin, 'pairs.csv', PAIRS);
  await admin.getByRole('button', { name: 'Open to workers' }).click();
  await admin.getByTestId('campaign-status').filter({ hasText: 'open' }).waitFor();
  await admin.getByLabel('What the task is').fill('Say whether two sentences mean the same.');
  await admin.getByLabel(/Complete after this many items/).fill('2');
  await admin.getByRole('button', { name: 'Save study information' }).click();
  await admin.getByTestId('study-info-saved').waitFor();
  await admin.getByLabel('Platform').selectOption('mturk');
  await admin.getByRole('button', { name: 'Create link' }).click();
  const url = admin.getByTestId('study-link-url');
  await url.filter({ hasText: server.url }).waitFor();
  const external = (await url.textContent()).trim();
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();

  // MTurk's page: the external question in an iframe, with MTurk's parameters.
  const query = 'assignmentId=3ASSIGNFRAME&hitId=3HITFRAME&workerId=AWORKERFRAME'
    + `&turkSubmitTo=${encodeURIComponent('https://workersandbox.mturk.com')}`;
  parent.on('request', (req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>MTurk</title><h1>HIT</h1>
      <iframe src="${external}?${query}" width="420" height="800" title="The HIT"></iframe>`);
  });
  const page = await newPage(browser);
  let submitted = null;
  await page.route('https://workersandbox.mturk.com/**', async (route) => {
    submitted = { url: route.request().url(), body: route.request().postData() };
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>HIT submitted</h1>' });
  });
  await page.goto(parentUrl);
  const hit = page.frameLocator('iframe');
  await hit.getByRole('heading', { name: 'Ferry pairs' }).waitFor();
  await hit.getByTestId('start').click();
  for (let n = 1; n <= 2; n++) {
    await hit.getByTestId('pair-number').filter({ hasText: new RegExp(`^${n}$`) }).waitFor();
    await page.waitForTimeout(400); // read the pair (quicker answers are ignored)
    await hit.getByRole('button', { name: 'Paraphrase', exact: true }).click();
  }
  await hit.getByRole('heading', { name: "You have done this study's pairs" }).waitFor();
  await hit.getByTestId('finish').click();
  // The completion page posts the HIT's form to MTurk, inside the frame.
  await hit.getByRole('heading', { name: 'HIT submitted' }).waitFor();
  assert.equal(submitted.url, 'https://workersandbox.mturk.com/mturk/externalSubmit');
  const posted = new URLSearchParams(submitted.body);
  assert.equal(posted.get('assignmentId'), '3ASSIGNFRAME');
  assert.match(posted.get('completion_code'), /^[A-Z0-9]{10}$/);
  assert.deepEqual(unexpectedErrors(page), []);
  await page.context().close();
});

test('a worker the quality gate stops sees what they earned and still completes', async () => {
  const admin = await newPage(browser);
  await loginAdmin(admin, server);
  await admin.getByRole('link', { name: 'Manage campaigns' }).click();
  await hydrated(admin);
  const form = admin.locator('form').filter({ hasText: 'Paraphrase definition' });
  await form.getByLabel('Title').fill('Gated pairs');
  await form.getByLabel('One test pair in every').fill('2');
  await form.getByLabel('Gate applies after (judgments)').fill('4');
  await form.getByLabel('Ignore answers faster than (ms)').fill('0');
  // MultiPIT's rule: stopped at or under 85% on the check questions, from the 4th judgment.
  await form.getByLabel('Quality gate').selectOption('paper');
  await form.getByRole('button', { name: 'Create judging campaign' }).click();
  await admin.getByRole('heading', { name: 'Gated pairs' }).waitFor();
  await uploadFile(admin, 'pairs.csv', PAIRS);
  await uploadFile(admin, 'gold.csv', ['sentence1,sentence2,label,explanation']
    .concat(Array.from({ length: 4 }, (_, i) => `Check ${i} is on Monday.,Check ${i} is on Friday.,0,The days differ.`))
    .join('\n'), { asTests: true });
  await admin.getByRole('button', { name: 'Open to workers' }).click();
  await admin.getByTestId('campaign-status').filter({ hasText: 'open' }).waitFor();
  await admin.getByLabel('What the task is').fill('Say whether two sentences mean the same.');
  await admin.getByLabel(/Bonus per judgment/).fill('0.02');
  await admin.getByRole('button', { name: 'Save study information' }).click();
  await admin.getByTestId('study-info-saved').waitFor();
  await admin.getByLabel('Platform').selectOption('generic');
  await admin.getByRole('button', { name: 'Create link' }).click();
  const url = admin.getByTestId('study-link-url');
  await url.filter({ hasText: 'pid=' }).waitFor();
  const link = (await url.textContent()).trim().replace('PARTICIPANT_ID', 'always-yes-1');
  await admin.context().close();

  const page = await newPage(browser);
  await page.goto(link.startsWith('http') ? link : `${server.url}${link}`);
  await hydrated(page);
  await page.getByTestId('start').click();
  const stopped = page.getByRole('heading', { name: 'Thank you' });
  // "Paraphrase" to everything: every check question (all "not a paraphrase") is missed.
  for (let n = 0; n < 12 && !(await stopped.count()); n++) {
    const dialog = page.getByRole('alertdialog', { name: 'Check question' });
    const yes = page.getByRole('button', { name: 'Paraphrase', exact: true });
    await Promise.race([yes.waitFor(), dialog.waitFor(), stopped.waitFor()]);
    if (await dialog.count()) {
      await page.getByRole('button', { name: /Continue/ }).click();
    } else if (await yes.count()) {
      await yes.click();
    }
    await page.waitForTimeout(150);
  }
  await stopped.waitFor();
  const judged = Number(await page.getByTestId('judged-total').textContent());
  const cents = Math.round(judged * 2);
  assert.equal(
    await page.getByTestId('stopped-pay').textContent(),
    `At $0.02 a pair you earned $0.${String(cents).padStart(2, '0')} for them. `
      + 'Your judgments so far are kept and count as work done; the researcher decides on any pay beyond the study\'s terms.',
  );
  await page.getByTestId('finish').click();
  await page.getByTestId('done-reason').filter({ hasText: 'quality check' }).waitFor();
  assert.match(await page.getByTestId('completion-code').textContent(), /^[A-Z0-9]{10}$/);
  assert.match(await page.getByTestId('earned').textContent(), new RegExp(`\\$0\\.${String(cents).padStart(2, '0')} for ${judged} judgments`));
  assert.deepEqual(unexpectedErrors(page), []);
  await page.context().close();
});
