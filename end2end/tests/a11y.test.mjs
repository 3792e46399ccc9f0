// Accessibility: axe-core (npm) checks every page, as each role sees it, at desktop and
// phone width: zero serious or critical violations of WCAG 2.1 A/AA and axe's best practices. Each
// page's first Tab reaches a "Skip to content" link that moves the focus to the page, and the
// judging page reads right to a screen reader: the pair as a named group with its two sentences,
// answers named without their key hints, the definition toggle's state, and the focus taken to
// the new pair after an answer and to a check question's Continue button.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, newPage, unexpectedErrors, loginAdmin, registerWorker, uploadFile, phone,
  accessibilityProblems, hydrated, newCampaignForm, createCampaign, openToWorkers,
} from '../support.mjs';


let server;
let browser;
let judgeId;
let aptId;

const PAIRS = ['sentence1,sentence2']
  .concat(Array.from({ length: 12 }, (_, i) => `The council met on day ${i}.,On day ${i} the council held a meeting.`))
  .join('\n');
const GOLD = ['sentence1,sentence2,label,explanation']
  .concat(Array.from({ length: 4 }, (_, i) => `Test ${i} happened on Monday.,Test ${i} happened on Friday.,0,The days differ.`))
  .join('\n');

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const admin = await newPage(browser);
  await createCampaign(admin, await newCampaignForm(admin, server, 'judging', 'Accessible judging'), 'judging', 'Accessible judging');
  await uploadFile(admin, 'pairs.csv', PAIRS);
  await uploadFile(admin, 'gold.csv', GOLD, { asTests: true });
  judgeId = await openToWorkers(admin);

  const aptForm = await newCampaignForm(admin, server, 'writing', 'Accessible writing', { loggedIn: true });
  await createCampaign(admin, aptForm, 'writing', 'Accessible writing');
  await uploadFile(admin, 'sources.tsv', 'text\torigin\nThe company said its profits rose sharply last year.\tmsrp\n');
  aptId = await openToWorkers(admin);
  await admin.context().close();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(page, path) {
  await page.goto(`${server.url}${path}`);
  await hydrated(page);
}

/** The first Tab on a page lands on the skip link, and following it puts the focus on <main>. */
async function assertSkipLink(page, what) {
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => ({ text: document.activeElement.textContent, href: document.activeElement.getAttribute('href') }));
  assert.deepEqual(focused, { text: 'Skip to content', href: '#main' }, `the first Tab on ${what}`);
  assert.ok(await page.getByRole('link', { name: 'Skip to content' }).isVisible(), 'it shows when focused');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'main', `the skip link on ${what} moves the focus`);
}

for (const [label, options] of [['desktop', { viewport: { width: 1280, height: 900 } }], ['phone', phone(390)]]) {
  test(`every page passes axe-core on a ${label}`, async () => {
    const problems = [];
    const assertAccessible = async (page, what) => problems.push(...await accessibilityProblems(page, what));
    const visitor = await newPage(browser, options);
    for (const path of ['/', '/login', '/register', '/no-such-page']) {
      await open(visitor, path);
      await assertAccessible(visitor, `${path} (visitor)`);
    }
    await open(visitor, '/');
    await assertSkipLink(visitor, 'the welcome page');
    await open(visitor, '/login');
    // A form's error as it is shown.
    await visitor.getByLabel('Username').fill('nobody');
    await visitor.getByLabel('Password').fill('wrong password');
    await visitor.getByRole('button', { name: 'Log in' }).click();
    await visitor.getByRole('alert').waitFor();
    await assertAccessible(visitor, 'a failed login');
    await visitor.context().close();

    const worker = await newPage(browser, options);
    await registerWorker(worker, server, `a11y${label}`);
    await assertAccessible(worker, 'the annotator home page');
    await open(worker, `/judge/${judgeId}`);
    await worker.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
    await assertAccessible(worker, 'the judging page');
    await worker.getByRole('button', { name: 'Show the definition' }).click();
    await assertAccessible(worker, 'the judging page with its definition');
    await open(worker, `/apt/${aptId}`);
    await worker.getByLabel('Your sentence').fill('Profits at the firm climbed steeply during the previous year.');
    await worker.getByRole('button', { name: 'Check', exact: true }).click();
    await worker.getByTestId('check-result').waitFor();
    await assertAccessible(worker, 'the writing page with a Check result');
    await open(worker, `/study/${judgeId}/done`);
    await worker.getByTestId('no-link').waitFor();
    await assertAccessible(worker, 'the completion page of a worker without a study link');
    assert.deepEqual(unexpectedErrors(worker), []);
    await worker.context().close();

    const admin = await newPage(browser, options);
    await loginAdmin(admin, server);
    for (const path of [
      '/', '/admin/campaigns', `/admin/campaigns/${judgeId}`, `/admin/campaigns/${aptId}`, '/admin/mining',
      '/admin/users', `/research/judge/${judgeId}`, `/research/apt/${aptId}`,
      `/research/export/${judgeId}`, `/research/export/${aptId}`, `/research/payments/${judgeId}`,
    ]) {
      await open(admin, path);
      await assertAccessible(admin, `${path} (admin)`);
    }
    assert.deepEqual(unexpectedErrors(admin), []);
    await admin.context().close();
    assert.deepEqual(problems, []);
  });
}

test('the judging page reads right to a screen reader', async () => {
  const page = await newPage(browser);
  await registerWorker(page, server, 'reader');
  await open(page, `/judge/${judgeId}`);
  await page.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
  await assertSkipLink(page, 'the judging page');

  // The pair is one named group holding the two named sentences; the answers are named by their
  // words alone (the key hint is hidden from the reader and given as a shortcut instead).
  const pair = page.getByRole('group', { name: 'The pair' });
  assert.equal(await pair.getByRole('blockquote', { name: 'Sentence 1' }).count(), 1);
  assert.equal(await pair.getByRole('blockquote', { name: 'Sentence 2' }).count(), 1);
  const yes = page.getByRole('button', { name: 'Paraphrase', exact: true });
  const no = page.getByRole('button', { name: 'Not paraphrase', exact: true });
  assert.equal(await yes.getAttribute('aria-keyshortcuts'), '1 ArrowLeft');
  assert.equal(await no.getAttribute('aria-keyshortcuts'), '2 ArrowRight');
  const toggle = page.getByRole('button', { name: 'Show the definition' });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await toggle.click();
  assert.equal(await page.getByRole('button', { name: 'Hide the definition' }).getAttribute('aria-expanded'), 'true');

  // Answering from the keyboard: Tab to an answer, press it; the focus moves to the new pair (not
  // lost to the page), and a missed check question takes it to its Continue button.
  let dialogs = 0;
  for (let n = 0; n < 5; n += 1) {
    await page.waitForTimeout(600); // answers faster than the campaign's minimum are ignored
    await yes.focus();
    await page.keyboard.press('Enter');
    const moved = page.getByTestId('judged').filter({ hasText: new RegExp(`^${n + 1}$`) });
    const dialog = page.getByRole('alertdialog', { name: 'Check question' });
    await Promise.race([moved.waitFor(), dialog.waitFor()]);
    if (await dialog.count()) {
      dialogs += 1;
      // The focus is on Continue, which names its key on a keyboard's screen.
      assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'continue');
      assert.equal(await page.evaluate(() => document.activeElement.querySelector('kbd')?.innerText), 'Enter');
      // Its name for a screen reader is the word alone (the key is hidden from it).
      assert.equal(await dialog.getByRole('button', { name: 'Continue', exact: true }).count(), 1);
      assert.deepEqual(await accessibilityProblems(page, 'a check question\'s feedback'), []);
      await page.keyboard.press('Enter');
      await moved.waitFor();
    }
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'The pair');
  }
  assert.equal(dialogs, 1, 'one check question in the first five, missed');
  assert.deepEqual(unexpectedErrors(page), []);
  await page.context().close();
});
