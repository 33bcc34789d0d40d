// The invitation link, as a new player meets it (issue 27): a GM makes a link on the members page;
// someone without an account opens it and sees, before signing in, the campaign's name, who invited
// them and as what; they create an account from there, come back to the invitation and join.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, createCampaign, expectNoPageErrors, launchBrowser, signUp, startE2eServer, type Browser, type E2eServer } from './browser.js';

let server: E2eServer;
let gm: Browser;
let visitor: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  gm = await launchBrowser();
  visitor = await launchBrowser({ width: 375, height: 740 });
}, 120_000);
afterAll(async () => {
  await gm?.close();
  await visitor?.close();
  await server?.stop();
});

describe('the join page', () => {
  it('names the campaign, the inviter and the role to a signed-out visitor, who signs up and joins', async () => {
    const page = gm.page;
    await signUp(page, server.base, 'Gia the GM');
    const slug = await createCampaign(page, 'The Lost Mine');
    await page.goto(`${server.base}/campaigns/${slug}/members`);
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await page.getByLabel('Role').selectOption('player');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = await page.getByLabel(/Send this link/).inputValue();

    // Signed out, on a phone: what the invitation offers, before anything else.
    const reader = visitor.page;
    await reader.goto(link);
    const offer = reader.locator('dl');
    await offer.getByText('The Lost Mine').waitFor();
    const facts = await offer.evaluate((dl) => [...dl.querySelectorAll('dt')].map((dt) => `${dt.textContent}: ${dt.nextElementSibling?.textContent}`));
    expect(facts.slice(0, 3)).toEqual(['Campaign: The Lost Mine', 'Invited by: Gia the GM', 'Role: player']);
    // The token is out of the address bar at once.
    expect(reader.url()).toBe(`${server.base}/join`);
    expect(await axeViolations(reader)).toEqual([]);

    // No account yet: create one from here, and come back to the invitation.
    await reader.getByRole('link', { name: 'create an account' }).click();
    await reader.getByRole('heading', { level: 1, name: 'Create your account' }).waitFor();
    await reader.getByLabel('Name').fill('Pip the Player');
    await reader.getByLabel('Email').fill(`pip-${process.pid}-${Date.now()}@example.com`);
    await reader.getByLabel('Password').fill('correct horse battery staple');
    await reader.getByRole('button', { name: 'Create account' }).click();
    await reader.getByText('You will join as Pip the Player.').waitFor();
    expect(new URL(reader.url()).pathname).toBe('/join');
    expect(await offer.textContent()).toContain('The Lost Mine');
    expect(await axeViolations(reader)).toEqual([]);
    await reader.getByRole('button', { name: 'Join the campaign' }).click();
    await reader.getByRole('heading', { level: 1, name: 'The Lost Mine' }).waitFor();
    expect(new URL(reader.url()).pathname).toBe(`/campaigns/${slug}`);

    // The GM sees the new player among the members.
    await page.reload();
    await page.locator('.member-name', { hasText: 'Pip the Player' }).waitFor();
    expectNoPageErrors(gm);
    expectNoPageErrors(visitor);
  });
});
