// The playground's Skills tab in headless Chromium: against the demo it lists the demo's skills (skills/list), opens
// one to show its SKILL.md and its folder tree (resources/directory/read), opens a file; the requests show in the
// traffic pane. Against a server paging one skill at a time without directoryRead it follows the cursor and lists
// the files the skills/list entry names; against a server without the extension the tab stays hidden.

import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { mcpRouter, type McpRouter } from '../../lib';
import { createDemo, SKILLS_DIR } from '../../demo/server';
import { launchChromium, newPage, serveDemo } from '../helpers/chromium';

const TOKEN = `e2e-${randomBytes(12).toString('base64url')}`;
const SCREENSHOT = path.join(__dirname, '..', 'artifacts', 'skills-playground.png');

// Starting Chromium takes a few seconds; every wait is for a condition, never a fixed time.
jest.setTimeout(60_000);

/** A bare router on a free loopback port, served as the demo is (its default origins allow the playground's page). */
async function serveRouter(mcp: McpRouter): Promise<{ endpoint: string; close(): Promise<void> }> {
  const app = express();
  app.use('/mcp', mcp);
  const served = await serveDemo({ app, mcp, notes: undefined, roaster: undefined });
  return { endpoint: `${served.origin}/mcp`, close: () => served.close() };
}

describe('the playground Skills tab (headless Chromium)', () => {
  let served: Awaited<ReturnType<typeof serveDemo>>;
  let paged: Awaited<ReturnType<typeof serveRouter>>;
  let plain: Awaited<ReturnType<typeof serveRouter>>;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    served = await serveDemo(createDemo({ token: TOKEN }));
    const pagedRouter = mcpRouter({ name: 'skills-paged', version: '1.0.0', pageSize: 1 });
    pagedRouter.skills({ dir: SKILLS_DIR, directoryRead: false });
    paged = await serveRouter(pagedRouter);
    const plainRouter = mcpRouter({ name: 'no-skills', version: '1.0.0' });
    plainRouter.tool({ name: 'echo', description: 'Echo', handler: () => 'echo' });
    plain = await serveRouter(plainRouter);
    browser = await launchChromium();
    ({ page } = await newPage(browser, pageErrors));
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([served?.close(), paged?.close(), plain?.close()]);
  });

  const trafficMethods = () =>
    page
      .locator('[data-testid="traffic-entry"][data-direction="out"]')
      .evaluateAll((entries) => entries.map((entry) => entry.getAttribute('data-method')));

  it("shows the Skills tab with the demo's skills, their names and descriptions", async () => {
    await page.goto(`${served.origin}/playground/#token=${TOKEN}`);
    await page.waitForSelector('[data-testid="tab-skills"]:not([hidden])');
    await page.click('[data-testid="tab-skills"]');
    await page.waitForSelector('[data-testid="skill-item"]');
    const items = page.locator('[data-testid="skill-item"]');
    expect(await items.locator('.item-title').allTextContents()).toEqual(['order-handling', 'restocking']);
    expect(await items.evaluateAll((all) => all.map((item) => item.getAttribute('data-name')))).toEqual([
      'skill://order-handling/SKILL.md',
      'skill://restocking/SKILL.md',
    ]);
    expect(await items.first().locator('.item-sub').textContent()).toMatch(/^Take, check and cancel orders/);
    expect(await page.textContent('#count-skills')).toBe('2');
    expect(await trafficMethods()).toContain('skills/list');
  });

  it('opens a skill: its SKILL.md text and its folder, read with resources/directory/read', async () => {
    await page.click('[data-testid="skill-item"][data-name="skill://order-handling/SKILL.md"]');
    const view = page.locator('[data-testid="skill-view"][data-skill="skill://order-handling/SKILL.md"]');
    const manifest = view.locator('[data-testid="skill-md"] pre.text');
    await manifest.waitFor();
    const expected = fs.readFileSync(path.join(SKILLS_DIR, 'order-handling', 'SKILL.md'), 'utf8');
    expect(await manifest.textContent()).toBe(expected);
    // The bytes read are the ones skills/list gave the digest of.
    await view.locator('[data-testid="skill-md"] [data-testid="skill-digest"][data-match="true"]').waitFor();

    await view.locator('[data-testid="skill-folder"]').waitFor();
    expect(await view.locator('[data-testid="skill-files"] > li > [data-testid]').allTextContents()).toEqual([
      'SKILL.md',
      'references/',
    ]);
    await view.locator('[data-testid="skill-folder"][data-uri="skill://order-handling/references"]').click();
    const errorsFile = view.locator(
      '[data-testid="skill-file"][data-uri="skill://order-handling/references/errors.md"]',
    );
    await errorsFile.waitFor();
    expect(await errorsFile.textContent()).toBe('errors.md');
    const directoryReads = (await trafficMethods()).filter((method) => method === 'resources/directory/read');
    expect(directoryReads).toHaveLength(2); // the skill's folder, then references/
  });

  it('opens a file of the skill and shows its text, digest checked', async () => {
    const view = page.locator('[data-testid="skill-view"]');
    await view.locator('[data-testid="skill-file"][data-uri="skill://order-handling/references/errors.md"]').click();
    const output = view.locator('[data-testid="skill-file-output"]');
    await output.locator('pre.text').waitFor();
    expect(await output.locator('pre.text').textContent()).toBe(
      fs.readFileSync(path.join(SKILLS_DIR, 'order-handling', 'references', 'errors.md'), 'utf8'),
    );
    expect(await output.locator('[data-testid="skill-digest"]').getAttribute('data-match')).toBe('true');
    // Skill files are shown as text: the Markdown's backticks and pipes are not markup.
    expect(await output.locator('pre.text code, pre.text table').count()).toBe(0);
    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });

  it('follows skills/list pages, and without directoryRead lists the files the entry names', async () => {
    // The same page, connected elsewhere: the traffic pane cleared so it shows this server's requests only.
    await page.click('#clear-traffic');
    await page.fill('#endpoint', paged.endpoint);
    await page.fill('#token', '');
    await page.click('[data-testid="connect"]');
    await page.waitForSelector('[data-testid="server-name"]:text-is("skills-paged")');
    await page.waitForSelector('[data-testid="tab-skills"]:not([hidden])');
    await page.click('[data-testid="tab-skills"]');
    await page.locator('[data-testid="skill-item"]').nth(1).waitFor();
    expect(await page.locator('[data-testid="skill-item"] .item-title').allTextContents()).toEqual([
      'order-handling',
      'restocking',
    ]);
    // pageSize 1: two pages, the second asked for with the first's nextCursor.
    expect((await trafficMethods()).filter((method) => method === 'skills/list')).toHaveLength(2);

    await page.click('[data-testid="skill-item"][data-name="skill://restocking/SKILL.md"]');
    const view = page.locator('[data-testid="skill-view"][data-skill="skill://restocking/SKILL.md"]');
    await view.locator('[data-testid="skill-file"]').nth(1).waitFor();
    expect(await view.locator('[data-testid="skill-file"]').allTextContents()).toEqual([
      'SKILL.md',
      'references/policy.md',
    ]);
    await view.locator('[data-testid="skill-file"][data-uri="skill://restocking/references/policy.md"]').click();
    await view.locator('[data-testid="skill-file-output"] pre.text').waitFor();
    expect(await view.locator('[data-testid="skill-file-output"] pre.text').textContent()).toMatch(
      /^# Restocking policy\n/,
    );
    expect(await trafficMethods()).not.toContain('resources/directory/read');
  });

  it('hides the tab for a server without the extension, and leaves it if it was open', async () => {
    expect(await page.getAttribute('[data-testid="tab-skills"]', 'aria-selected')).toBe('true');
    await page.fill('#endpoint', plain.endpoint);
    await page.click('[data-testid="connect"]');
    await page.waitForSelector('[data-testid="tool-item"][data-name="echo"]');
    expect(await page.locator('[data-testid="tab-skills"]').isHidden()).toBe(true);
    expect(await page.getAttribute('[data-testid="tab-tools"]', 'aria-selected')).toBe('true');
    expect(await page.locator('#panel-skills').isHidden()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
