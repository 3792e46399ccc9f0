// Register, log in, log out and the admin's user page in a real browser, with JavaScript
// (hydrated release build) and without it (plain HTML forms).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, uniqueName, unexpectedErrors, PASSWORD, hydrated } from '../support.mjs';

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

async function register(page, name) {
  await page.goto(`${server.url}/register`);
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
}

async function logIn(page, name, password = PASSWORD) {
  await page.goto(`${server.url}/login`);
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

async function waitForHydration(page) {
  // The wasm bundle has loaded and taken over the page when the module script has run and
  // Leptos has attached its handlers; a form submit then no longer reloads the document.
  await hydrated(page, { timeout: 20_000 });
}

test('with JavaScript: register, see the home page, log out, log in again (hydrated)', async () => {
  const page = await newPage(browser);
  const name = uniqueName('e2e');

  const response = await page.goto(`${server.url}/register`);
  // The page runs under a script policy with a nonce, and hydrates under it.
  assert.match(response.headers()['content-security-policy'], /script-src 'self' 'nonce-[^']+' 'wasm-unsafe-eval'/);
  await waitForHydration(page);
  // A marker on window survives client-side navigation but not a full page load.
  await page.evaluate(() => { window.__marker = 'kept'; });
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
  await page.getByText('No campaigns are open for you yet').waitFor();
  assert.equal(await page.evaluate(() => window.__marker), 'kept', 'the form was handled by the hydrated app');

  // An annotator on an admin page sees the refusal and no form to fill in, and the page says
  // so in its status too.
  const refused = await page.goto(`${server.url}/admin/campaigns`);
  assert.equal(refused.status(), 403);
  await waitForHydration(page);
  await page.getByText('You do not have permission').first().waitFor();
  // A researcher's page refuses them under its own heading.
  const dashboard = await page.goto(`${server.url}/research/judge/00000000-0000-4000-8000-000000000000`);
  assert.equal(dashboard.status(), 403);
  await page.getByRole('heading', { name: 'Worker quality report' }).waitFor();
  await page.getByText('You do not have permission').first().waitFor();
  assert.equal(await page.getByRole('button', { name: /^Create/ }).count(), 0, 'no creation forms');
  await page.goto(`${server.url}/`);
  await waitForHydration(page);
  await page.evaluate(() => { window.__marker = 'kept'; });

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('alert').getByText('Wrong username or password.').waitFor();

  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
  assert.equal(await page.evaluate(() => window.__marker), 'kept');
  assert.deepEqual(unexpectedErrors(page), []);
  await page.context().close();
});

test('without JavaScript: register, log out, wrong password, log in', async () => {
  const page = await newPage(browser, { javaScriptEnabled: false });
  const name = uniqueName('nojs');

  // The password's rules are on the form before anything is refused, tied to the field.
  await page.goto(`${server.url}/register`);
  assert.match(await page.getByTestId('password-rules').textContent(), /^At least 8 characters, and not one a guesser would try early/);
  assert.equal(await page.getByLabel('Password', { exact: true }).getAttribute('aria-describedby'), 'password-rules');
  await register(page, name);
  await page.getByText('No campaigns are open for you yet').waitFor();
  await page.goto(`${server.url}/admin/campaigns`);
  await page.getByText('You do not have permission').first().waitFor();
  assert.equal(await page.getByRole('button', { name: /^Create/ }).count(), 0, 'no creation forms');
  await page.goto(`${server.url}/`);

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();

  await logIn(page, name, 'wrong password');
  await page.getByRole('alert').getByText('Wrong username or password.').waitFor();

  await logIn(page, name);
  await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
  assert.deepEqual(unexpectedErrors(page), []);
  await page.context().close();
});

test('the first admin logs in with the printed password and blocks a user', async () => {
  assert.ok(server.adminPassword, `first start prints the admin password:\n${server.output()}`);
  const workerPage = await newPage(browser);
  const worker = uniqueName('worker');
  await register(workerPage, worker);

  const admin = await newPage(browser);
  await logIn(admin, 'admin', server.adminPassword);
  await admin.getByRole('heading', { name: 'Welcome, admin' }).waitFor();
  await admin.getByRole('link', { name: 'Users' }).click();
  await admin.getByRole('heading', { name: 'Users' }).waitFor();
  const row = admin.getByRole('row').filter({ hasText: worker });
  await row.getByRole('button', { name: 'Block' }).click();
  await row.getByRole('button', { name: 'Unblock' }).waitFor();
  await row.getByText('blocked').waitFor();

  // The blocked worker's open session ends, and they cannot log in again (the same answer as a
  // wrong password: the form tells no one which accounts are blocked).
  await workerPage.reload();
  await workerPage.getByRole('link', { name: 'Log in' }).first().waitFor();
  await logIn(workerPage, worker);
  await workerPage.getByRole('alert').getByText('Wrong username or password.').waitFor();

  // Changing a role from the same page. The table sorts by role, so the promoted worker's row
  // moves up; every row's select must still show its own user's role afterwards (the row that
  // took the old place once showed the role just granted), and the page says
  // what was saved.
  const others = [];
  for (let i = 0; i < 3; i += 1) {
    const other = await newPage(browser);
    others.push(uniqueName('other'));
    await register(other, others[i]);
    await other.context().close();
  }
  await admin.reload();
  await hydrated(admin);
  // An unsaved choice on another row must stay on that row when the table re-sorts.
  const pending = others[1];
  await admin.getByLabel(`Role of ${pending}`).selectOption('admin');
  await row.getByLabel(`Role of ${worker}`).selectOption('researcher');
  await row.getByRole('button', { name: 'Save' }).click();
  await admin.getByTestId('saved').getByText(`Saved: ${worker} is now researcher.`).waitFor();
  // The table has been read again and re-sorted: the researcher comes right after the admin.
  await admin.waitForFunction(
    (w) => document.querySelectorAll('tbody tr')[1]?.dataset.username === w,
    worker,
  );
  const shown = await admin.$$eval('tbody tr', (trs) => trs.map((tr) => [tr.dataset.username, tr.querySelector('select').value]));
  for (const [username, role] of shown) {
    if (username === pending) {
      // Its own unsaved choice, or its role as the table was read again: either is its own.
      assert.ok(['admin', 'annotator'].includes(role), `the row of ${username} shows ${role}`);
      continue;
    }
    const expected = username === 'admin' ? 'admin' : username === worker ? 'researcher' : 'annotator';
    assert.equal(role, expected, `the row of ${username} shows ${role}`);
  }
  assert.ok(shown.length >= 5, `every account is listed (${shown.length})`);
  assert.deepEqual(unexpectedErrors(admin), []);
  assert.deepEqual(unexpectedErrors(workerPage), []);
  await admin.context().close();
  await workerPage.context().close();
});
