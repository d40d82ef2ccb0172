// Loads the operator page (/admin) in the system's headless Chromium with a test NIP-07 signer: window.nostr signs
// with the secret key given, through nostr-tools' own finalizeEvent, the way a signer extension would.
// Environment: ADMIN_URL (the page), OPERATOR_SECRET and STRANGER_SECRET (64 hex each), SCREENSHOT (a PNG path),
// CHROMIUM (default /usr/bin/chromium). Prints one JSON object: what each signer's page showed.
import { chromium } from 'playwright-core';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

function bytes(hex) {
  return Uint8Array.from(hex.match(/../g).map((b) => parseInt(b, 16)));
}

async function view(browser, secretHex, screenshot) {
  const secret = bytes(secretHex);
  const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
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
  page.on('dialog', (dialog) => dialog.dismiss());
  await page.goto(process.env.ADMIN_URL);
  await page.waitForSelector('body[data-loaded]', { timeout: 20000 });
  const loaded = await page.getAttribute('body', 'data-loaded');
  const result = { loaded, signedUrls: signed.slice() };
  if (loaded === 'stats') {
    // Every count tile the page shows, by its state: the page's own list is the one under test.
    result.counts = Object.fromEntries(await page.$$eval('[data-testid^="count-"]', (tiles) => tiles.map(
      (tile) => [tile.dataset.testid.slice('count-'.length), Number(tile.textContent)])));
    result.overdue = Number(await page.textContent('[data-testid="overdue"]'));
    result.publishedLastHour = Number(await page.textContent('[data-testid="published_last_hour"]'));
    result.failures = await page.$$eval('[data-testid="failure"]', (rows) => rows.map((r) => r.textContent));
    result.chartBars = await page.$$eval('#chart rect.bar', (bars) => bars.length);
    await page.selectOption('#search select[name="state"]', 'failed');
    await page.click('#search button[type="submit"]');
    await page.waitForSelector('[data-testid="message"]', { timeout: 20000 });
    result.searchRows = await page.$$eval('[data-testid="message"]', (rows) => rows.map((r) => r.textContent));
    result.localStorage = await page.evaluate(() => window.localStorage.length + window.sessionStorage.length);
    result.cookies = (await context.cookies()).length;
  } else {
    result.banner = await page.textContent('#banner');
    result.bannerStatus = await page.getAttribute('#banner', 'data-status');
  }
  if (screenshot) {
    await page.screenshot({ path: screenshot, fullPage: true });
  }
  await context.close();
  return result;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: FLAGS,
});
try {
  const operator = await view(browser, process.env.OPERATOR_SECRET, process.env.SCREENSHOT);
  const stranger = await view(browser, process.env.STRANGER_SECRET, null);
  process.stdout.write(JSON.stringify({ operator, stranger }) + '\n');
} finally {
  await browser.close();
}
