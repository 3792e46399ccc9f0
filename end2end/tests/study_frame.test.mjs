// A study inside Mechanical Turk's frame: MTurk shows an external question in an
// iframe on its own site, so the pages must allow that frame (and only that one), the session
// cookie must be kept in a cross-site frame, and the finished worker's page must post MTurk's
// externalSubmit form with the assignment id. Here a page on another site (localhost, while the
// app is 127.0.0.1) stands in for MTurk's; the app is told it may frame the study
// (PARACROWD_FRAME_ANCESTORS) and runs with Secure cookies, as behind HTTPS (browsers treat
// loopback addresses as secure). The form's post to workersandbox.mturk.com is caught.
// Then the researcher runs the HIT's MTurk side from the payments page, against a local fake of
// MTurk's requester API (AWS's JSON protocol, as the official SDK speaks it), at desktop width:
// connects the link to its HIT, tests it, reconciles, rejects a stranger, approves the worker
// and sends their bonus, once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  startServer, launchBrowser, newPage, unexpectedErrors, loginAdmin, uploadFile, hydrated,
  accessibilityProblems, sidewaysScroll, newCampaignForm, createCampaign, openToWorkers,
} from '../support.mjs';

let server;
let browser;
let parent;
let parentUrl;
let mturk;

const AWS_KEY = 'AKIDE2EMTURK00000001';
const AWS_SECRET = 'e2e-mturk-secret-Qw93';

/**
 * A local fake of MTurk's requester API: `POST /` with `X-Amz-Target:
 * MTurkRequesterServiceV20170117.<Operation>` and a JSON body, signed with the test's key. The
 * HIT `3HITFRAME`, its assignments (id -> worker, status) listed two a page, approvals,
 * rejections and bonuses (each `UniqueRequestToken` paid once).
 */
function fakeMturk() {
  const assignments = new Map();
  const approvals = [];
  const rejections = [];
  const bonuses = [];
  const tokens = new Set();
  const reply = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res, message) => reply(res, 400, { __type: 'RequestError', Message: message });
  const srv = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      if (!(req.headers.authorization || '').includes(`Credential=${AWS_KEY}/`)) {
        return reply(res, 400, { __type: 'UnrecognizedClientException', Message: 'The security token included in the request is invalid.' });
      }
      const op = (req.headers['x-amz-target'] || '').replace('MTurkRequesterServiceV20170117.', '');
      const b = raw ? JSON.parse(raw) : {};
      switch (op) {
        case 'GetAccountBalance':
          return reply(res, 200, { AvailableBalance: '10000.00' });
        case 'GetHIT':
          if (b.HITId !== '3HITFRAME') return refuse(res, 'Hit does not exist.');
          return reply(res, 200, { HIT: { HITId: '3HITFRAME', Title: 'Ferry pairs HIT', HITStatus: 'Assignable', MaxAssignments: 9, NumberOfAssignmentsCompleted: 1 } });
        case 'ListAssignmentsForHIT': {
          const all = [...assignments].filter(([, a]) => b.HITId === '3HITFRAME')
            .map(([id, a]) => ({ AssignmentId: id, WorkerId: a.worker, HITId: '3HITFRAME', AssignmentStatus: a.status }));
          const start = b.NextToken ? Number(b.NextToken) : 0;
          const page = all.slice(start, start + 2);
          return reply(res, 200, { NumResults: page.length, Assignments: page, ...(start + 2 < all.length ? { NextToken: String(start + 2) } : {}) });
        }
        case 'ApproveAssignment':
        case 'RejectAssignment': {
          const a = assignments.get(b.AssignmentId);
          if (!a || a.status !== 'Submitted') return refuse(res, 'This operation can be called with a status of: Submitted');
          if (op === 'ApproveAssignment') {
            a.status = 'Approved';
            approvals.push(b.AssignmentId);
          } else {
            a.status = 'Rejected';
            rejections.push({ id: b.AssignmentId, feedback: b.RequesterFeedback });
          }
          return reply(res, 200, {});
        }
        case 'SendBonus':
          if (assignments.get(b.AssignmentId)?.worker !== b.WorkerId) return refuse(res, 'Assignment not found for this worker.');
          if (tokens.has(b.UniqueRequestToken)) return refuse(res, 'The request token has already been used.');
          tokens.add(b.UniqueRequestToken);
          bonuses.push(b);
          return reply(res, 200, {});
        case 'ListBonusPayments':
          return reply(res, 200, { BonusPayments: bonuses.filter((x) => x.AssignmentId === b.AssignmentId) });
        default:
          return reply(res, 400, { __type: 'UnknownOperationException', Message: op });
      }
    });
  });
  return { assignments, approvals, rejections, bonuses, srv };
}

const PAIRS = ['sentence1,sentence2']
  .concat(Array.from({ length: 6 }, (_, i) => `The ferry left at ${i} o'clock.,At ${i} o'clock the ferry departed.`))
  .join('\n');

before(async () => {
  parent = http.createServer();
  await new Promise((resolve) => parent.listen(0, '127.0.0.1', resolve));
  parentUrl = `http://localhost:${parent.address().port}`;
  mturk = fakeMturk();
  await new Promise((resolve) => mturk.srv.listen(0, '127.0.0.1', resolve));
  server = await startServer({
    PARACROWD_SECURE_COOKIES: 'true',
    PARACROWD_FRAME_ANCESTORS: parentUrl,
    PARACROWD_MTURK_ENDPOINT: `http://127.0.0.1:${mturk.srv.address().port}`,
    AWS_ACCESS_KEY_ID: AWS_KEY,
    AWS_SECRET_ACCESS_KEY: AWS_SECRET,
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  parent?.close();
  mturk?.srv.close();
});

test('a worker takes the HIT inside the frame, finishes, and the HIT is submitted to MTurk', async () => {
  const admin = await newPage(browser);
  await createCampaign(admin, await newCampaignForm(admin, server, 'judging', 'Ferry pairs'), 'judging', 'Ferry pairs');
  await uploadFile(admin, 'pairs.csv', PAIRS);
  await openToWorkers(admin);
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
  const form = await newCampaignForm(admin, server, 'judging', 'Gated pairs');
  await form.getByLabel('One test pair in every').fill('2');
  await form.getByLabel('Gate applies after (judgments)').fill('4');
  await form.getByLabel('Ignore answers faster than (ms)').fill('0');
  // MultiPIT's rule: stopped at or under 85% on the check questions, from the 4th judgment.
  await form.getByLabel('Quality gate').selectOption('paper');
  await createCampaign(admin, form, 'judging', 'Gated pairs');
  await uploadFile(admin, 'pairs.csv', PAIRS);
  await uploadFile(admin, 'gold.csv', ['sentence1,sentence2,label,explanation']
    .concat(Array.from({ length: 4 }, (_, i) => `Check ${i} is on Monday.,Check ${i} is on Friday.,0,The days differ.`))
    .join('\n'), { asTests: true });
  await openToWorkers(admin);
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

test('the researcher reconciles the HIT with MTurk, approves the worker and sends their bonus once', async () => {
  // MTurk's side: the worker who finished in the frame submitted the HIT; a stranger to this
  // study submitted it too.
  mturk.assignments.set('3ASSIGNFRAME', { worker: 'AWORKERFRAME', status: 'Submitted' });
  mturk.assignments.set('3ASSIGNSTRANGER', { worker: 'ASTRANGER', status: 'Submitted' });

  const admin = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  await loginAdmin(admin, server);
  await admin.getByRole('link', { name: 'Manage campaigns' }).click();
  await admin.getByRole('link', { name: 'Ferry pairs' }).click();
  await hydrated(admin);
  // Pay per judgment is raised: the worker is owed a bonus for their two pairs.
  await admin.getByLabel(/Bonus per judgment/).fill('0.05');
  await admin.getByRole('button', { name: 'Save study information' }).click();
  await admin.getByTestId('study-info-saved').filter({ hasText: 'Saved as version' }).waitFor();
  await admin.getByTestId('payments-link').click();
  await admin.getByRole('heading', { name: 'Mechanical Turk', exact: true }).waitFor();
  await hydrated(admin);
  // The HIT id and the sandbox come from what the worker's link carried.
  const section = admin.getByTestId('mturk');
  assert.equal(await section.getByTestId('mturk-hit-ids').inputValue(), '3HITFRAME');
  assert.equal(await section.getByTestId('mturk-sandbox').isChecked(), true);
  await section.getByTestId('mturk-connect').click();
  await section.getByTestId('mturk-where').filter({ hasText: "MTurk's sandbox" }).waitFor();
  await section.getByTestId('mturk-test').click();
  await section.getByTestId('mturk-tested').filter({ hasText: 'balance $10000.00' }).waitFor();
  assert.match(await section.getByTestId('mturk-tested').textContent(), /HIT 3HITFRAME “Ferry pairs HIT”: Assignable/);

  await section.getByTestId('mturk-reconcile').click();
  await section.getByTestId('mturk-reconcile-table').waitFor();
  assert.match(await section.getByTestId('mturk-summary').textContent(), /2 rows, 1 approvable, 1 to look at first/);
  const standing = async (w) => section.getByTestId('mturk-row').filter({ hasText: w }).getAttribute('data-standing');
  assert.equal(await standing('AWORKERFRAME'), 'Approvable');
  assert.equal(await standing('ASTRANGER'), 'UnknownHere');
  assert.deepEqual(await accessibilityProblems(admin, 'the MTurk reconciliation table'), []);

  // The stranger is rejected with feedback; the worker approved after a confirmation, once.
  const stranger = section.getByTestId('mturk-row').filter({ hasText: 'ASTRANGER' });
  await stranger.getByTestId('mturk-reject').locator('summary').click();
  const feedback = 'This HIT was submitted without any of the study\'s pairs judged in it.';
  await stranger.getByTestId('mturk-reject-message').fill(feedback);
  await stranger.getByTestId('mturk-reject-confirm').click();
  await section.getByTestId('mturk-rejected').filter({ hasText: 'MTurk rejected assignment 3ASSIGNSTRANGER' }).waitFor();
  assert.deepEqual(mturk.rejections, [{ id: '3ASSIGNSTRANGER', feedback }]);
  await section.getByTestId('mturk-call').filter({ hasText: 'Reject assignment 3ASSIGNSTRANGER' }).waitFor();
  // The table stays on screen and is read again by itself: the stranger is rejected there now.
  await section.getByTestId('mturk-summary').filter({ hasText: /2 rows, 1 approvable\.$/ }).waitFor();
  assert.equal(await standing('ASTRANGER'), 'Rejected');
  await section.getByTestId('mturk-approve').click();
  await section.getByTestId('mturk-approve-confirm').click();
  await section.getByTestId('mturk-approved').filter({ hasText: 'MTurk approved 1 assignment.' }).waitFor();
  assert.deepEqual(mturk.approvals, ['3ASSIGNFRAME']);
  await section.getByTestId('mturk-call').filter({ hasText: 'Approve 1 assignment' }).filter({ hasText: 'Accepted by MTurk' }).waitFor();
  await section.getByTestId('mturk-summary').filter({ hasText: /2 rows, 0 approvable\.$/ }).waitFor();
  assert.equal(await section.getByTestId('mturk-approve').count(), 0);

  // The bonus: a batch, which the sandbox cannot pay (nothing paid there is real); connected to
  // production, it is sent through MTurk after a confirmation, and the batch is marked paid from
  // MTurk's answer.
  await admin.getByTestId('outstanding').filter({ hasText: '$0.10 in bonuses' }).waitFor();
  await admin.getByTestId('make-batch').click();
  await admin.getByTestId('batch-made').waitFor();
  await section.getByTestId('mturk-sandbox-bonuses').waitFor();
  assert.equal(await section.getByTestId('mturk-bonus-row').count(), 0);
  await section.getByTestId('mturk-sandbox').uncheck();
  await section.getByTestId('mturk-connect').click();
  await section.getByTestId('mturk-where').filter({ hasText: 'in production' }).waitFor();
  const row = section.getByTestId('mturk-bonus-row').first();
  await row.getByTestId('mturk-pay').filter({ hasText: 'Pay $0.10 on MTurk' }).waitFor();
  await row.getByTestId('mturk-pay').click();
  assert.match(await row.getByTestId('mturk-pay-question').textContent(), /Send \$0\.10 in bonuses to 1 worker through MTurk/);
  assert.deepEqual(await accessibilityProblems(admin, 'the MTurk bonus confirmation'), []);
  await row.getByTestId('mturk-pay-confirm').click();
  await section.getByTestId('mturk-paid').filter({ hasText: 'MTurk took 1 bonus' }).waitFor();
  await section.getByTestId('mturk-bonus-state').filter({ hasText: 'Paid on MTurk: 1 bonus, $0.10' }).waitFor();
  assert.equal(mturk.bonuses.length, 1);
  assert.equal(mturk.bonuses[0].WorkerId, 'AWORKERFRAME');
  assert.equal(mturk.bonuses[0].AssignmentId, '3ASSIGNFRAME');
  assert.equal(mturk.bonuses[0].BonusAmount, '0.10');
  // The token of the batch's mturk.csv: a bonus sent from the file too pays once.
  assert.match(mturk.bonuses[0].UniqueRequestToken, /^[0-9a-f]{32}-AWORKERFRAME$/);
  await admin.getByTestId('batch-paid').waitFor();
  await admin.getByTestId('outstanding').filter({ hasText: '$0.00 in bonuses' }).waitFor();
  assert.equal((await admin.content()).includes(AWS_SECRET), false);
  // On a phone, the section (with its tables and open forms) fits the width: tables scroll in
  // their own regions, never the page.
  await section.getByTestId('mturk-reconcile').click();
  await section.getByTestId('mturk-reconcile-table').waitFor();
  for (const width of [320, 390]) {
    await admin.setViewportSize({ width, height: 800 });
    assert.equal(await sidewaysScroll(admin), 0, `the payments page scrolls sideways at ${width} px`);
  }
  assert.deepEqual(unexpectedErrors(admin), []);
  await admin.context().close();
});
