// A study on Prolific, in the browser: the admin writes the study information and
// consent text and makes a Prolific link for two workers; a participant opens it as Prolific
// sends them (on a phone), reads the study, agrees and starts judging with no password; a second
// declines, is signed out and gives the place back; a third takes it and a fourth finds the study
// full. Every step passes axe-core. Then the researcher reconciles the study with Prolific (a
// local fake of its API) and approves the completed submission, at desktop width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  startServer, launchBrowser, newPage, unexpectedErrors, loginAdmin, uploadFile, phone,
  accessibilityProblems, sidewaysScroll, hydrated, newCampaignForm, createCampaign, openToWorkers,
} from '../support.mjs';

let server;
let browser;
let linkUrl;
let prolific;

const PROLIFIC_TOKEN = 'e2e-prolific-token-Zx81';

/**
 * A local fake of Prolific's API: the study `study42`, its submissions (id -> participant,
 * status) listed page by page (two a page), and bulk approval, behind the API token.
 */
function fakeProlific() {
  const submissions = new Map();
  const approvals = [];
  const bonuses = new Map();
  const pays = [];
  const reply = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const srv = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://fake');
    if (req.headers.authorization !== `Token ${PROLIFIC_TOKEN}`) {
      return reply(res, 401, { error: { detail: 'Invalid token.', error_code: 140100 } });
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/studies/study42/') {
      return reply(res, 200, { id: 'study42', name: 'News pairs (Prolific)', status: 'ACTIVE' });
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/submissions/') {
      const all = [...submissions].map(([id, s]) => ({ id, participant_id: s.participant, status: s.status }));
      const page = Number(url.searchParams.get('page') || 1);
      const chunk = url.searchParams.get('study') === 'study42' ? all.slice((page - 1) * 2, page * 2) : [];
      const more = url.searchParams.get('study') === 'study42' && page * 2 < all.length;
      return reply(res, 200, { results: chunk, _links: { next: { href: more ? `http://fake/?page=${page + 1}` : null } } });
    }
    const transition = url.pathname.match(/^\/api\/v1\/submissions\/([^/]+)\/transition\/$/);
    if (req.method === 'POST' && transition && submissions.has(transition[1])) {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        const b = JSON.parse(body);
        const s = submissions.get(transition[1]);
        if (b.action !== 'REJECT' || !b.rejection_category || (b.message || '').length < 100 || s.status !== 'AWAITING REVIEW') {
          return reply(res, 400, { error: { detail: 'Cannot reject.' } });
        }
        s.status = 'REJECTED';
        return reply(res, 200, { id: transition[1], status: 'REJECTED' });
      });
      return undefined;
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/submissions/bonus-payments/') {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        const b = JSON.parse(body);
        const cents = b.csv_bonuses.trim().split('\n')
          .reduce((sum, line) => sum + Math.round(Number(line.split(',')[1]) * 100), 0);
        const id = `bonus${bonuses.size + 1}`;
        bonuses.set(id, b);
        const fees = Math.round(cents / 3);
        reply(res, 201, { id, study: b.study_id, amount: cents, fees, vat: 0, total_amount: cents + fees });
      });
      return undefined;
    }
    const pay = url.pathname.match(/^\/api\/v1\/bulk-bonus-payments\/([^/]+)\/pay\/$/);
    if (req.method === 'POST' && pay && bonuses.has(pay[1])) {
      pays.push(pay[1]);
      return reply(res, 202, 'Successfully received bonus payments request.');
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/submissions/bulk-approve/') {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        const b = JSON.parse(body);
        if (!Array.isArray(b.submission_ids) || 'study_id' in b) {
          return reply(res, 400, { error: { detail: 'Give submission ids alone.' } });
        }
        approvals.push(b);
        for (const id of b.submission_ids) {
          const s = submissions.get(id);
          if (s && s.status === 'AWAITING REVIEW') s.status = 'APPROVED';
        }
        reply(res, 200, 'The request to bulk approve has been made successfully.');
      });
      return undefined;
    }
    return reply(res, 404, { error: { detail: 'Not found.' } });
  });
  return new Promise((resolve) => {
    srv.listen(0, '127.0.0.1', () => resolve({
      url: `http://127.0.0.1:${srv.address().port}`, submissions, approvals, bonuses, pays, close: () => srv.close(),
    }));
  });
}

const PAIRS = ['sentence1,sentence2']
  .concat(Array.from({ length: 10 }, (_, i) => `The council met on day ${i}.,On day ${i} the council held a meeting.`))
  .join('\n');
const CONSENT = 'I understand that my answers are used for research.\nI may stop at any time.';

before(async () => {
  prolific = await fakeProlific();
  server = await startServer({
    PARACROWD_PROLIFIC_TOKEN: PROLIFIC_TOKEN,
    PARACROWD_PROLIFIC_API_URL: prolific.url,
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  prolific?.close();
});

/** The link as Prolific opens it: its placeholders filled with this participant's ids. */
function asProlificSends(url, pid) {
  return url
    .replace('{{%PROLIFIC_PID%}}', pid)
    .replace('{{%STUDY_ID%}}', 'study42')
    .replace('{{%SESSION_ID%}}', `session-${pid}`);
}

test('an admin sets up the study and its Prolific link', async () => {
  const admin = await newPage(browser, { permissions: ['clipboard-read', 'clipboard-write'] });
  await createCampaign(admin, await newCampaignForm(admin, server, 'judging', 'News pairs'), 'judging', 'News pairs');
  await uploadFile(admin, 'pairs.csv', PAIRS);
  await openToWorkers(admin);

  await admin.getByLabel('What the task is').fill('Say whether two news sentences mean the same.');
  await admin.getByLabel('Estimated minutes').fill('10');
  await admin.getByLabel('Pay (per item, bonus rules)').fill('£1.50 for the study');
  await admin.getByLabel('Consent text (empty: no consent step)').fill(CONSENT);
  await admin.getByLabel('Completion code (Prolific\'s, or one to show)').fill('C7PQ2R');
  await admin.getByRole('button', { name: 'Save study information' }).click();
  await admin.getByTestId('study-info-saved').filter({ hasText: 'Saved as version 1.' }).waitFor();

  await admin.getByLabel('Platform').selectOption('prolific');
  await admin.getByLabel('At most this many workers').fill('2');
  await admin.getByRole('button', { name: 'Create link' }).click();
  const url = admin.getByTestId('study-link-url');
  await url.filter({ hasText: server.url }).waitFor();
  linkUrl = await url.textContent();
  assert.match(linkUrl, /\/s\/[0-9a-f]{32}\?PROLIFIC_PID=\{\{%PROLIFIC_PID%\}\}&STUDY_ID=\{\{%STUDY_ID%\}\}&SESSION_ID=\{\{%SESSION_ID%\}\}$/);
  // The link is copied with one press, and the form is empty again: a second press of Create
  // would not make the same link twice.
  await admin.getByRole('button', { name: 'Copy' }).click();
  await admin.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await admin.evaluate(() => navigator.clipboard.readText()), linkUrl);
  assert.equal(await admin.getByLabel('At most this many workers').inputValue(), '');
  assert.equal(await admin.getByTestId('study-link-workers').textContent(), '0 of 2');
  assert.deepEqual(await accessibilityProblems(admin, 'the campaign page with its study'), []);
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();
});

test('a participant agrees and judges; another declines; the last place goes and then it is full', async () => {
  // A visitor's first page says what the study involves.
  const visitor = await newPage(browser, phone(390));
  await visitor.goto(`${server.url}/`);
  await visitor.getByRole('heading', { name: 'Open studies' }).waitFor();
  assert.equal(
    await visitor.getByTestId('open-studies').textContent(),
    'News pairs JudgingSay whether two news sentences mean the same.about 10 minutes · £1.50 for the study',
  );
  assert.deepEqual(await accessibilityProblems(visitor, 'the welcome page with an open study'), []);
  await visitor.context().close();

  const first = await newPage(browser, phone(390));
  await first.goto(asProlificSends(linkUrl, '5f3a9c0d1e2b4a0012345678'));
  await first.getByRole('heading', { name: 'News pairs' }).waitFor();
  await hydrated(first);
  assert.equal(await first.getByTestId('minutes').textContent(), 'About 10 minutes');
  assert.equal(await first.getByTestId('pay').textContent(), '£1.50 for the study');
  assert.match(await first.getByTestId('quality').textContent(), /check question/);
  assert.equal(await first.getByTestId('consent-text').textContent(), CONSENT);
  assert.equal(await first.getByTestId('start').count(), 0, 'no Start before consent');
  assert.deepEqual(await accessibilityProblems(first, 'the study information'), []);
  assert.equal(await sidewaysScroll(first), 0, 'the study information fits a 390 px phone');
  await first.getByRole('button', { name: 'I agree' }).click();
  await first.getByTestId('start').click();
  await first.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
  // A reload of the link brings the same participant back, past the consent.
  await first.goto(asProlificSends(linkUrl, '5f3a9c0d1e2b4a0012345678'));
  assert.equal(await first.getByTestId('start').textContent(), 'Continue where you left off');
  assert.deepEqual(unexpectedErrors(first), []);
  await first.context().close();

  const second = await newPage(browser);
  await second.goto(asProlificSends(linkUrl, '60aa11bb22cc33dd44ee55ff'));
  await hydrated(second);
  await second.getByRole('button', { name: 'I do not agree' }).click();
  await second.getByTestId('declined').waitFor();
  await second.goto(`${server.url}/`);
  await second.getByRole('link', { name: 'Log in' }).first().waitFor();
  assert.deepEqual(unexpectedErrors(second), []);
  await second.context().close();

  // The decline gave its place back: a third participant takes it, and a fourth finds none.
  const third = await newPage(browser);
  await third.goto(asProlificSends(linkUrl, '70aa11bb22cc33dd44ee55ff'));
  await third.getByRole('button', { name: 'I agree' }).waitFor();
  await third.context().close();
  const fourth = await newPage(browser);
  const resp = await fourth.goto(asProlificSends(linkUrl, '80aa11bb22cc33dd44ee55ff'));
  assert.equal(resp.status(), 409);
  await fourth.getByRole('heading', { name: 'This study is full' }).waitFor();
  assert.deepEqual(await accessibilityProblems(fourth, 'a full study'), []);
  await fourth.context().close();

  const broken = await newPage(browser);
  const bad = await broken.goto(linkUrl.split('?')[0]);
  assert.equal(bad.status(), 400);
  await broken.getByRole('heading', { name: 'This study link is incomplete' }).waitFor();
  assert.match(await broken.getByTestId('refusal-detail').textContent(), /PROLIFIC_PID/);
  await broken.context().close();
});

test('a participant finishes the pairs asked for and goes back to Prolific; the researcher pays the bonus once', async () => {
  // The admin asks for 3 pairs at $0.02 each (a new version: consent is asked again).
  const admin = await newPage(browser);
  await loginAdmin(admin, server);
  await admin.getByRole('link', { name: 'Manage campaigns' }).click();
  await admin.getByRole('link', { name: 'News pairs' }).click();
  await hydrated(admin);
  await admin.getByLabel(/Complete after this many items/).fill('3');
  await admin.getByLabel(/Bonus per judgment/).fill('0.02');
  await admin.getByRole('button', { name: 'Save study information' }).click();
  await admin.getByTestId('study-info-saved').filter({ hasText: 'Saved as version 2.' }).waitFor();

  const pid = '5f3a9c0d1e2b4a0012345678';
  const worker = await newPage(browser, phone(390));
  // Prolific's completion page, as this machine cannot reach it.
  await worker.route('https://app.prolific.com/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Prolific</title><h1>Submission complete</h1>' }));
  await worker.goto(asProlificSends(linkUrl, pid));
  await hydrated(worker);
  await worker.getByRole('button', { name: 'I agree' }).click();
  await worker.getByTestId('start').click();
  await worker.getByRole('heading', { name: 'Is sentence 2 a paraphrase of sentence 1?' }).waitFor();
  assert.match(await worker.getByTestId('study-terms').textContent(), /\$0\.02 a pair · 3 pairs in all · about 10 minutes/);
  for (let n = 1; n <= 3; n++) {
    await worker.getByTestId('pair-number').filter({ hasText: new RegExp(`^${n}$`) }).waitFor();
    await worker.waitForTimeout(400); // read the pair (answers quicker than 300 ms are ignored)
    await worker.keyboard.press(n % 2 ? '1' : '2');
  }
  await worker.getByRole('heading', { name: "You have done this study's pairs" }).waitFor();
  assert.equal(await worker.getByTestId('judged-total').textContent(), '3');
  // A reload before finishing says the same, as a page (200), not as an error.
  const again = await worker.reload();
  assert.equal(again.status(), 200);
  await worker.getByRole('heading', { name: "You have done this study's pairs" }).waitFor();
  assert.equal(await worker.locator('.notice.error').count(), 0);
  await hydrated(worker);
  assert.deepEqual(await accessibilityProblems(worker, 'the end of the pairs'), []);
  await worker.getByTestId('finish').click();
  // The completion page records it and sends the participant back to Prolific with the code.
  await worker.waitForURL('https://app.prolific.com/submissions/complete?cc=C7PQ2R');
  // Coming back: the same code, no more pairs.
  await worker.goto(asProlificSends(linkUrl, pid));
  await worker.getByTestId('already-completed').waitFor();
  await worker.getByRole('link', { name: /Your completion code/ }).click();
  await worker.getByTestId('completion-code').filter({ hasText: 'C7PQ2R' }).waitFor();
  assert.match(await worker.getByTestId('earned').textContent(), /\$0\.06 for 3 judgments/);
  assert.deepEqual(unexpectedErrors(worker).filter((e) => !/prolific\.com/.test(e)), []);
  await worker.context().close();

  // The researcher's payments page: the participant's bonus, a batch, its file, paid once.
  await admin.getByTestId('payments-link').click();
  await admin.getByRole('heading', { name: /Payments/ }).waitFor();
  await hydrated(admin);
  const row = admin.getByTestId('pay-row').filter({ hasText: pid });
  assert.equal(await row.getByTestId('bonus').textContent(), '$0.06');
  assert.match(await admin.getByTestId('outstanding').textContent(), /\$0\.06 in bonuses/);
  assert.deepEqual(await accessibilityProblems(admin, 'the payments page'), []);
  await admin.getByTestId('make-batch').click();
  await admin.getByTestId('batch-made').filter({ hasText: '$0.06 for 1 workers' }).waitFor();
  // Discarding asks first; then the amount is owed again and goes into the next batch.
  await admin.getByTestId('discard').click();
  await admin.getByTestId('discard-confirm').click();
  await admin.getByTestId('outstanding').filter({ hasText: '$0.06 in bonuses' }).waitFor();
  assert.equal(await admin.getByTestId('batch-row').count(), 0);
  await admin.getByTestId('make-batch').click();
  await admin.getByTestId('batch-row').waitFor();
  const href = await admin.getByRole('link', { name: 'Prolific' }).getAttribute('href');
  const file = await admin.request.get(`${server.url}${href}`);
  assert.equal(file.status(), 200);
  assert.equal(await file.text(), `${pid},0.06\n`);
  // The batch's time reads to the minute, in UTC.
  assert.match(await admin.getByTestId('batch-row').locator('time').textContent(), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  await admin.getByTestId('mark-paid').click();
  await admin.getByTestId('batch-paid').waitFor();
  assert.match(await admin.getByTestId('batch-paid').textContent(), /^Paid \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  assert.equal(await row.getByTestId('paid').textContent(), '$0.06');
  assert.match(await admin.getByTestId('outstanding').textContent(), /\$0\.00 in bonuses/);
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();
});

test('the researcher reconciles the study with Prolific and approves only the completed submission', async () => {
  // Prolific's side: the participant who finished, one who agreed but never judged and entered a
  // code anyway, a stranger to this study, and the decliner, who returned the study.
  prolific.submissions.set('sub-first', { participant: '5f3a9c0d1e2b4a0012345678', status: 'AWAITING REVIEW' });
  prolific.submissions.set('sub-third', { participant: '70aa11bb22cc33dd44ee55ff', status: 'AWAITING REVIEW' });
  prolific.submissions.set('sub-stranger', { participant: '99aa11bb22cc33dd44ee55ff', status: 'AWAITING REVIEW' });
  prolific.submissions.set('sub-second', { participant: '60aa11bb22cc33dd44ee55ff', status: 'RETURNED' });

  const admin = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  await loginAdmin(admin, server);
  await admin.getByRole('link', { name: 'Manage campaigns' }).click();
  await admin.getByRole('link', { name: 'News pairs' }).click();
  await hydrated(admin);
  await admin.getByTestId('payments-link').click();
  await admin.getByRole('heading', { name: 'Prolific', exact: true }).waitFor();
  await hydrated(admin);
  assert.match(await admin.getByTestId('prolific-token').textContent(), /has a Prolific API token/);
  // The study id is filled in from the STUDY_ID the participants' links carried.
  const field = admin.getByTestId('prolific-study-id');
  assert.equal(await field.inputValue(), 'study42');
  await admin.getByTestId('prolific-connect').click();
  await admin.getByTestId('prolific-test').click();
  await admin.getByTestId('prolific-tested').filter({ hasText: 'News pairs (Prolific)' }).waitFor();

  await admin.getByTestId('prolific-reconcile').click();
  await admin.getByTestId('reconcile').waitFor();
  assert.match(await admin.getByTestId('reconcile-summary').textContent(), /4 rows, 1 approvable, 2 to look at first/);
  const standing = async (pid) => admin.getByTestId('reconcile-row').filter({ hasText: pid }).getAttribute('data-standing');
  assert.equal(await standing('5f3a9c0d1e2b4a0012345678'), 'Approvable');
  assert.equal(await standing('70aa11bb22cc33dd44ee55ff'), 'NotCompletedHere');
  assert.equal(await standing('99aa11bb22cc33dd44ee55ff'), 'UnknownHere');
  assert.equal(await standing('60aa11bb22cc33dd44ee55ff'), 'ReturnedOrTimedOut');
  assert.match(
    await admin.getByTestId('reconcile-row').first().textContent(),
    /code without the work/,
  );
  assert.deepEqual(await accessibilityProblems(admin, 'the reconciliation table'), []);

  // The participant who entered a code without the work is rejected, with Prolific's category
  // and a message long enough for Prolific.
  const codeOnly = admin.getByTestId('reconcile-row').filter({ hasText: '70aa11bb22cc33dd44ee55ff' });
  await codeOnly.getByTestId('prolific-reject').locator('summary').click();
  await codeOnly.getByTestId('prolific-reject-category').selectOption('NO_CODE');
  await codeOnly.getByTestId('prolific-reject-message').fill(
    'You entered the completion code without judging any pair of the study, so there is no work to pay for. Write to us if this is wrong.',
  );
  assert.deepEqual(await accessibilityProblems(admin, 'the rejection form'), []);
  await codeOnly.getByTestId('prolific-reject-confirm').click();
  await admin.getByTestId('prolific-rejected').filter({ hasText: 'rejected submission sub-third' }).waitFor();
  assert.equal(prolific.submissions.get('sub-third').status, 'REJECTED');
  // The section reloads with the call listed; then the study is read again.
  await admin.getByTestId('prolific-call').filter({ hasText: 'Reject submission sub-third' }).waitFor();
  await hydrated(admin);
  await admin.getByTestId('prolific-reconcile').click();
  await admin.getByTestId('reconcile-summary').filter({ hasText: '1 approvable, 1 to look at first' }).waitFor();

  // Approving asks first, then names only the completed submission, once.
  await admin.getByTestId('prolific-approve').click();
  await admin.getByTestId('prolific-approve-confirm').click();
  await admin.getByTestId('prolific-approved').filter({ hasText: 'accepted the approval of 1 submission' }).waitFor();
  assert.deepEqual(prolific.approvals, [{ submission_ids: ['sub-first'] }]);
  await admin.getByTestId('prolific-call').filter({ hasText: 'Approve 1 submission' }).filter({ hasText: 'Accepted by Prolific' }).waitFor();
  // Reconciled again: approved there, nothing left to approve.
  await admin.getByTestId('prolific-reconcile').click();
  await admin.getByTestId('reconcile-summary').filter({ hasText: '0 approvable' }).waitFor();
  assert.equal(await admin.getByTestId('prolific-approve').count(), 0);

  // The study pays more per judgment now: the participant is owed $0.03 more. The researcher
  // makes the batch, sets it up on Prolific, sees Prolific's fees, and pays it from here, once.
  await admin.goto(`${server.url}/`);
  await admin.getByRole('link', { name: 'Manage campaigns' }).click();
  await admin.getByRole('link', { name: 'News pairs' }).click();
  await hydrated(admin);
  await admin.getByLabel(/Bonus per judgment/).fill('0.03');
  await admin.getByRole('button', { name: 'Save study information' }).click();
  await admin.getByTestId('study-info-saved').filter({ hasText: 'Saved as version 3.' }).waitFor();
  await admin.getByTestId('payments-link').click();
  await admin.getByRole('heading', { name: 'Prolific', exact: true }).waitFor();
  await hydrated(admin);
  await admin.getByTestId('outstanding').filter({ hasText: '$0.03 in bonuses' }).waitFor();
  await admin.getByTestId('make-batch').click();
  await admin.getByTestId('batch-made').waitFor();
  const bonusRow = admin.getByTestId('prolific-bonus-row').first();
  await bonusRow.getByTestId('prolific-bonus-set-up').click();
  await admin.getByTestId('prolific-bonus-pay').filter({ hasText: 'Pay $0.04 on Prolific' }).waitFor();
  assert.deepEqual([...prolific.bonuses.values()], [{ study_id: 'study42', csv_bonuses: '5f3a9c0d1e2b4a0012345678,0.03\n' }]);
  await admin.getByTestId('prolific-bonus-pay').click();
  assert.match(await admin.getByTestId('prolific-bonus-question').textContent(), /\$0\.03 in bonuses, \$0\.01 in fees and VAT/);
  assert.deepEqual(await accessibilityProblems(admin, 'the bonus confirmation'), []);
  await admin.getByTestId('prolific-bonus-pay-confirm').click();
  await admin.getByTestId('prolific-bonus-paid').waitFor();
  await admin.getByTestId('prolific-bonus-state').filter({ hasText: 'Paid on Prolific: $0.04' }).waitFor();
  assert.deepEqual(prolific.pays, ['bonus1']);
  // The batch is marked paid from Prolific's answer, not from a click.
  await admin.getByTestId('batch-paid').nth(1).waitFor();
  await admin.getByTestId('outstanding').filter({ hasText: '$0.00 in bonuses' }).waitFor();
  // The token is nowhere on the page.
  assert.equal((await admin.content()).includes(PROLIFIC_TOKEN), false);
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();
});
