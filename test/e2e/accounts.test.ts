// Accounts in the browser (CONTRACT "# Phase 3" › "Accounts"): the join page shows what an
// invitation offers before anyone signs in; a player changes their password by keyboard alone and
// deletes their account; the game master is refused deletion while owning a shared campaign (the
// dialog names it), sets a new password with the link the administrator's command line prints,
// and signs out everywhere.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { axeViolations, createCampaign, expectNoPageErrors, launchBrowser, screenshotPath, signUp, startE2eServer, type Browser, type E2eServer } from './browser.js';

const GM_PASSWORD = 'correct horse battery staple';
const PLAYER_PASSWORD = 'a player’s first password';
const PLAYER_NEW_PASSWORD = 'a player’s second password';
const GM_NEW_PASSWORD = 'the reset password of the GM';

let server: E2eServer;
let gm: Browser;
let player: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  gm = await launchBrowser();
  player = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await gm?.close();
  await player?.close();
  await server?.stop();
});

/** The invitation's facts on the join page, as "term: value" lines. */
async function invitationFacts(page: Page): Promise<string[]> {
  const list = page.locator('dl.invitation');
  await list.waitFor();
  return list.evaluate((dl) => [...dl.querySelectorAll('dt')].map((dt) => `${dt.textContent}: ${dt.nextElementSibling?.textContent ?? ''}`));
}

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${server.base}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The reset link `npm run cli -- user reset-password <email>` prints for the server's database. */
async function resetLink(email: string): Promise<string> {
  const lines: string[] = [];
  const errors: string[] = [];
  const status = await runCli(['user', 'reset-password', email], { ...server.env, PUBLIC_BASE_URL: server.base, LOG_LEVEL: 'silent' }, { out: (l) => lines.push(l), err: (l) => errors.push(l) });
  expect(status, errors.join('\n')).toBe(0);
  return lines.find((line) => line.startsWith(server.base))!;
}

describe('accounts in the browser', () => {
  it('previews an invitation before sign-in, changes a password by keyboard, deletes accounts, resets a password by link and signs out everywhere', async () => {
    const page = gm.page;
    const gmEmail = await signUp(page, server.base, 'Gia the GM');
    await createCampaign(page, 'Shared Saga');
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page.getByLabel('Role').selectOption('player');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = await page.getByLabel(/Send this link/).inputValue();

    // Signed out, the link shows the campaign, the inviter and the role, and uses nothing.
    const reader = player.page;
    await reader.goto(link);
    await reader.getByRole('heading', { name: 'You are invited to a campaign' }).waitFor();
    expect(new URL(reader.url()).hash).toBe('');
    expect(await invitationFacts(reader)).toEqual(expect.arrayContaining(['Campaign: Shared Saga', 'Invited by: Gia the GM', 'Role: player']));
    expect(await axeViolations(reader)).toEqual([]);
    await reader.screenshot({ path: screenshotPath('join-preview.png') });
    await reader.getByRole('link', { name: 'create an account' }).click();
    await reader.getByLabel('Name').fill('Pip the Player');
    const playerEmail = `pip-${Date.now()}@example.com`;
    await reader.getByLabel('Email').fill(playerEmail);
    await reader.getByLabel('Password').fill(PLAYER_PASSWORD);
    await reader.getByRole('button', { name: 'Create account' }).click();
    await reader.getByRole('heading', { name: 'You are invited to a campaign' }).waitFor();
    await reader.getByText('Invited by').waitFor();
    await reader.getByRole('button', { name: 'Join the campaign' }).click();
    await reader.getByRole('heading', { level: 1, name: 'Shared Saga' }).waitFor();

    // The game master may not delete the account while the campaign is shared: the dialog names it.
    await page.goto(`${server.base}/account`);
    await page.getByRole('button', { name: 'Delete account…' }).click();
    const refusal = page.getByRole('dialog', { name: 'Delete your account?' });
    await refusal.getByLabel('Password').fill(GM_PASSWORD);
    await refusal.getByRole('button', { name: 'Delete my account' }).click();
    await refusal.getByRole('link', { name: 'Shared Saga' }).waitFor();
    expect(await refusal.getByRole('alert').textContent()).toContain('Transfer each to another member');
    await page.screenshot({ path: screenshotPath('delete-account-refused.png') });
    await page.keyboard.press('Escape');
    await refusal.waitFor({ state: 'hidden' });

    // The player changes their password by keyboard alone: Tab between labelled fields, Enter sends.
    await reader.goto(`${server.base}/account`);
    await reader.getByRole('heading', { name: 'Password', level: 2 }).waitFor();
    await reader.getByLabel('Current password').focus();
    await reader.keyboard.type('not my password');
    await reader.keyboard.press('Tab');
    await reader.keyboard.type(PLAYER_NEW_PASSWORD);
    await reader.keyboard.press('Enter');
    await reader.getByText('is not the password of this account').waitFor();
    await reader.getByLabel('Current password').fill('');
    await reader.getByLabel('Current password').focus();
    await reader.keyboard.type(PLAYER_PASSWORD);
    await reader.keyboard.press('Tab');
    await reader.keyboard.press('ControlOrMeta+A');
    await reader.keyboard.type(PLAYER_NEW_PASSWORD);
    await reader.keyboard.press('Enter');
    await reader.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
    expect(await axeViolations(reader)).toEqual([]);
    await reader.screenshot({ path: screenshotPath('account.png'), fullPage: true });

    // The player deletes their account, confirming with the new password.
    await reader.getByRole('button', { name: 'Delete account…' }).click();
    const confirm = reader.getByRole('dialog', { name: 'Delete your account?' });
    await confirm.getByLabel('Password').fill(PLAYER_NEW_PASSWORD);
    await confirm.getByRole('button', { name: 'Delete my account' }).click();
    await reader.getByRole('heading', { name: 'Create your account' }).waitFor();
    await signIn(reader, playerEmail, PLAYER_NEW_PASSWORD);
    await reader.getByText('The email address or the password is wrong.').waitFor();

    // The administrator's reset link: the game master sets a new password, and every session ends.
    const resetUrl = await resetLink(gmEmail);
    expect(resetUrl).toMatch(new RegExp(`^${server.base}/reset-password#lfr_`));
    const resetPage = await gm.newPage();
    await resetPage.goto(resetUrl);
    await resetPage.getByRole('heading', { name: 'Set a new password' }).waitFor();
    expect(new URL(resetPage.url()).hash).toBe('');
    expect(await axeViolations(resetPage)).toEqual([]);
    await resetPage.getByLabel('New password').fill(GM_NEW_PASSWORD);
    await resetPage.getByRole('button', { name: 'Set password' }).click();
    await resetPage.getByRole('status').filter({ hasText: 'Your password is set' }).waitFor();
    // The same link a second time (a fresh load, not a same-page hash change): gone.
    await resetPage.goto('about:blank');
    await resetPage.goto(resetUrl);
    await resetPage.getByRole('heading', { name: 'Set a new password' }).waitFor();
    // The form is drawn with the heading; the page's words say why when it is not.
    expect(await resetPage.locator('main').innerText()).toContain('New password');
    await resetPage.getByLabel('New password').fill('yet another new password');
    await resetPage.getByRole('button', { name: 'Set password' }).click();
    await resetPage.getByText('This link cannot be used').waitFor();
    await resetPage.close();
    // The old session is over; the new password signs in.
    await page.goto(`${server.base}/account`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(page, gmEmail, GM_NEW_PASSWORD);
    await page.getByRole('heading', { name: 'Your campaigns' }).waitFor();

    // Sign out everywhere.
    await page.goto(`${server.base}/account`);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('dialog', { name: 'Sign out on every device?' }).getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${server.base}/account`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    expectNoPageErrors(gm);
    expectNoPageErrors(player);
  }, 180_000);
});
