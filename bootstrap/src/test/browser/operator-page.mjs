// Drives the operator console (/admin) in the system's headless Chromium with a test NIP-07 signer: window.nostr
// signs with the secret key given, through nostr-tools' own finalizeEvent, the way a signer extension would. The
// operator's journey is clicked, not only rendered: the first load (what shows before the figures arrive), the
// failed tile, a failed message's detail, fixing the relay and requeueing it until it is published, cancelling a
// pending one, the time-range and npub filters, the order, a copy button, a 375 px wide screen; then another key.
// Environment: ADMIN_URL (the page), OPERATOR_SECRET and STRANGER_SECRET (64 hex each), FAILED_ID (the failed
// message), PENDING_ID (a pending one), RESTRICTED_FILE (emptied to lift the relay's refusal), OWNER_NPUB (an
// owner's npub to filter by), DUE_FROM and DUE_BEFORE (a due range, as datetime-local values in UTC), SCREENSHOT and
// SCREENSHOT_NARROW (PNG paths; the narrow one also as *-detail.png), CHROMIUM (default /usr/bin/chromium).
// Prints one JSON object: what each step showed.
import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const WAIT = { timeout: 30000 };
const env = process.env;

function bytes(hex) {
  return Uint8Array.from(hex.match(/../g).map((b) => parseInt(b, 16)));
}

async function open(browser, secretHex, viewport, options = {}) {
  const secret = bytes(secretHex);
  const context = await browser.newContext({ viewport, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  const signed = [];
  await page.exposeFunction('__testSign', (event) => {
    const result = finalizeEvent(event, secret);
    signed.push(result.tags.find((t) => t[0] === 'u')[1]);
    return { ...result };
  });
  await page.exposeFunction('__testPubkey', () => getPublicKey(secret));
  await page.addInitScript(() => {
    window.nostr = {
      getPublicKey: () => window.__testPubkey(),
      signEvent: (event) => window.__testSign(event),
    };
  });
  const dialogs = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    return options.acceptDialogs ? dialog.accept() : dialog.dismiss();
  });
  return { context, page, signed, dialogs };
}

const rows = (page, selector) => page.$$eval(selector, (list) => list.map((r) => ({
  id: r.dataset.id, state: r.dataset.state, text: r.textContent,
  cells: Array.from(r.cells).map((c) => ({ label: c.dataset.label, text: c.querySelector('span')?.textContent ?? '' })),
})));

async function search(page, fields) {
  for (const [name, value] of Object.entries(fields)) {
    const element = page.locator('#search [name="' + name + '"]');
    if (await element.evaluate((e) => e.tagName) === 'SELECT') await element.selectOption(value);
    else await element.fill(value);
  }
  await page.click('#search button[type="submit"]');
  await page.waitForSelector('[data-testid="message"], [data-testid="results-none"]', WAIT);
  await page.waitForFunction(() => document.querySelector('#matched').textContent !== '', null, WAIT);
}

async function operatorJourney(browser) {
  const { context, page, signed, dialogs } = await open(browser, env.OPERATOR_SECRET, { width: 1280, height: 1100 },
    { acceptDialogs: true });
  const result = {};
  // Hold the first answer back, to see what the page shows while it loads.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  let first = true;
  await page.route('**/v1/admin/stats', async (route) => {
    if (first) {
      first = false;
      await held;
    }
    await route.continue();
  });
  await page.goto(env.ADMIN_URL);
  await page.waitForSelector('[data-testid="failures-loading"]', WAIT);
  result.whileLoading = {
    failures: await page.textContent('#failures'),
    published: await page.textContent('[data-testid="published_last_hour"]'),
    chart: await page.textContent('#chart'),
    loaded: await page.getAttribute('body', 'data-loaded'),
  };
  release();
  await page.waitForSelector('body[data-loaded="stats"]', WAIT);
  result.loaded = await page.getAttribute('body', 'data-loaded');
  result.counts = Object.fromEntries(await page.$$eval('[data-testid^="count-"]', (tiles) => tiles.map(
    (tile) => [tile.dataset.testid.slice('count-'.length), Number(tile.textContent)])));
  result.overdue = Number(await page.textContent('[data-testid="overdue"]'));
  result.publishedLastHour = Number(await page.textContent('[data-testid="published_last_hour"]'));
  result.retriedLastHour = Number(await page.textContent('[data-testid="retried_last_hour"]'));
  result.whoami = await page.textContent('#whoami');
  result.failures = await rows(page, '[data-testid="failure"]');
  result.chartBars = await page.$$eval('#chart rect.bar', (bars) => bars.length);
  result.xTicks = await page.$$eval('[data-testid="x-tick"]', (ticks) => ticks.map((t) => t.textContent));
  result.yTicks = await page.$$eval('[data-testid="y-tick"]', (ticks) => ticks.map((t) => t.textContent));

  // The failed tile lists the failed messages; the row opens the detail with the relay's words.
  await page.click('.tile.failed');
  await page.waitForSelector('[data-testid="message"]', WAIT);
  result.failedList = { rows: await rows(page, '[data-testid="message"]'), matched: await page.textContent('#matched'),
    stateFilter: await page.inputValue('#search [name="state"]') };
  await page.click('[data-testid="message"][data-id="' + env.FAILED_ID + '"]');
  await page.waitForSelector('[data-testid="attempt"]', WAIT);
  result.failedDetail = {
    state: await page.textContent('[data-testid="detail-state"]'),
    attempts: await rows(page, '[data-testid="attempt"]'),
    buttons: await page.$$eval('#detail-actions button', (list) => list.map((b) => b.dataset.testid)),
    text: await page.textContent('#detail'),
  };

  // The docs' picture: a failure, its detail with the relay's words and the requeue button.
  await page.screenshot({ path: env.SCREENSHOT, fullPage: true });

  // The operator fixes the relay's setting, then requeues: the owner's signed event goes out, once.
  writeFileSync(env.RESTRICTED_FILE, '');
  await page.click('[data-testid="requeue"]');
  await page.waitForSelector('[data-testid="action-done"]', WAIT);
  result.afterRequeue = await page.textContent('[data-testid="detail-state"]');
  await page.waitForSelector('body[data-detail="' + env.FAILED_ID + ':published"]', { timeout: 60000 });
  result.requeued = {
    state: await page.textContent('[data-testid="detail-state"]'),
    attempts: await rows(page, '[data-testid="attempt"]'),
    buttons: await page.$$eval('#detail-actions button', (list) => list.map((b) => b.dataset.testid)),
  };

  // The published list no longer reads as a problem: no last error on the requeued message's row.
  await search(page, { state: 'published' });
  result.publishedList = await rows(page, '[data-testid="message"]');

  // Cancel a pending message from its detail.
  await search(page, { state: 'scheduled' });
  result.scheduledList = await rows(page, '[data-testid="message"]');
  await page.click('[data-testid="message"][data-id="' + env.PENDING_ID + '"]');
  await page.waitForSelector('[data-testid="cancel"]', WAIT);
  await page.click('[data-testid="cancel"]');
  await page.waitForSelector('body[data-detail="' + env.PENDING_ID + ':cancelled"]', WAIT);
  result.cancelled = {
    state: await page.textContent('[data-testid="detail-state"]'),
    buttons: await page.$$eval('#detail-actions button', (list) => list.map((b) => b.dataset.testid)),
  };

  // Filter by due time (any state), then by an owner's npub, then change the order.
  await search(page, { state: '', due_from: env.DUE_FROM, due_before: env.DUE_BEFORE });
  result.timeRange = { rows: await rows(page, '[data-testid="message"]'),
    matched: await page.getAttribute('#matched', 'data-count') };
  await search(page, { due_from: '', due_before: '', owner: env.OWNER_NPUB });
  result.byNpub = { rows: await rows(page, '[data-testid="message"]'),
    matched: await page.getAttribute('#matched', 'data-count') };
  await page.click('#sort-due');
  await page.waitForFunction(() => document.querySelector('#search [name="order"]').value === '-due');
  await page.waitForSelector('[data-testid="message"]', WAIT);
  result.byNpubLatestFirst = await rows(page, '[data-testid="message"]');

  // A copy button puts the whole id on the clipboard.
  await page.click('[data-testid="message"] td[data-label="id"] button.copy');
  result.copied = await page.evaluate(() => navigator.clipboard.readText());
  result.dialogs = dialogs;
  result.signedUrls = signed.slice();
  result.localStorage = await page.evaluate(() => window.localStorage.length + window.sessionStorage.length);
  result.cookies = (await context.cookies()).length;
  await context.close();
  return result;
}

async function narrow(browser) {
  const { context, page } = await open(browser, env.OPERATOR_SECRET, { width: 375, height: 812 });
  await page.goto(env.ADMIN_URL);
  await page.waitForSelector('body[data-loaded="stats"]', WAIT);
  await page.click('.tile.published');
  await page.waitForSelector('[data-testid="message"]', WAIT);
  await page.click('[data-testid="message"][data-id="' + env.FAILED_ID + '"]');
  await page.waitForSelector('[data-testid="attempt"]', WAIT);
  await page.evaluate(() => window.scrollTo(0, 0));
  const result = await page.evaluate(() => ({
    viewport: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    widest: Array.from(document.querySelectorAll('main *')).reduce((max, e) => Math.max(max,
      e.getBoundingClientRect().right), 0),
  }));
  // What a phone shows: the top of the console, and the message's detail.
  await page.screenshot({ path: env.SCREENSHOT_NARROW });
  await page.evaluate(() => document.getElementById('detail').scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: env.SCREENSHOT_NARROW.replace(/\.png$/, '-detail.png') });
  await context.close();
  return result;
}

async function stranger(browser) {
  const { context, page } = await open(browser, env.STRANGER_SECRET, { width: 1280, height: 900 });
  await page.goto(env.ADMIN_URL);
  await page.waitForSelector('body[data-loaded]', WAIT);
  const result = {
    loaded: await page.getAttribute('body', 'data-loaded'),
    banner: await page.textContent('#banner'),
    bannerStatus: await page.getAttribute('#banner', 'data-status'),
    whoami: await page.textContent('#whoami'),
    failures: await page.textContent('#failures'),
  };
  await context.close();
  return result;
}

const browser = await chromium.launch({
  executablePath: env.CHROMIUM || '/usr/bin/chromium', headless: true, args: FLAGS,
});
try {
  const operator = await operatorJourney(browser);
  const small = await narrow(browser);
  const other = await stranger(browser);
  process.stdout.write(JSON.stringify({ operator, narrow: small, stranger: other }) + '\n');
} finally {
  await browser.close();
}
