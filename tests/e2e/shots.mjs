// Developer aid (not a test): start the server, take screenshots of the main pages into $OUT.
import { startServer, launchBrowser, newPage, register, uniqueName } from './harness.js';
const out = process.env.OUT || '/tmp/shots';
const server = await startServer();
const browser = await launchBrowser();
try {
  const page = await newPage(browser, server.url);
  await page.goto(server.url + '/#/register');
  await page.screenshot({ path: `${out}/register.png` });
  await register(page, server.url, uniqueName('张三'));
  await page.goto(server.url + '/#/lobby');
  await page.waitForTimeout(800);
  await page.screenshot({ path: `${out}/lobby.png` });
  const phone = await newPage(browser, server.url, { width: 390, height: 844 });
  await phone.goto(server.url + '/#/lobby');
  await phone.waitForTimeout(800);
  await phone.screenshot({ path: `${out}/lobby-phone.png`, fullPage: true });
  for (const extra of (process.env.PAGES || '').split(',').filter(Boolean)) {
    await page.goto(server.url + '/#/' + extra);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${out}/${extra.replace(/\W/g, '_')}.png` });
  }
  console.log('errors:', page.errors);
} finally {
  await browser.close();
  await server.stop();
}
