// Issue 38 §4, §7 and §9, as people see them: a logged-out visitor on a phone opens the lobby's
// list of games in progress and watches a public game read-only (backs only, no guest made, told
// how to play); the player's 观众 count follows the spectators in and out within a second or so;
// the log reads the same after a reload (own ranks included) and for a spectator who came late.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedServer, newPage, register, uniqueName } from './harness.js';
import { botRoom, logLines } from './play.js';

const shared = sharedServer();

/** The spectator count the page's seats heading shows (观众 n). */
async function spectatorsShown(page) {
  const text = await page.textContent('[data-testid=spectator-count]').catch(() => null);
  const m = /观众\s*(\d+)/.exec(text || '');
  return m ? Number(m[1]) : null;
}

/** Wait until `page` shows `n` spectators; how long it took (ms). */
async function untilSpectators(page, n, limitMs) {
  const start = Date.now();
  for (;;) {
    if (await spectatorsShown(page) === n) return Date.now() - start;
    if (Date.now() - start > limitMs) assert.fail(`观众 ${n} not shown within ${limitMs} ms (shows ${await spectatorsShown(page)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a visitor watches a public game from the lobby on a phone; the players\' 观众 count follows within a second', { timeout: 300_000 }, async () => {
  const url = shared.server.url;
  const host = await newPage(shared.browser, url);
  host.on('dialog', (d) => d.accept());
  await register(host, url, uniqueName('主'));
  // the longest move clock: the game waits for the host while the logs are compared
  const room = await botRoom(host, url, { moveSeconds: 120 });
  await host.waitForSelector('svg.board .piece', { timeout: 30_000 });
  assert.equal(await spectatorsShown(host), 0, 'nobody watches yet');
  // a logged-in spectator watches from the start; the computer plays the host's seat for a while
  const early = await newPage(shared.browser, url);
  await register(early, url, uniqueName('早'));
  await early.goto(`${url}/#/room/${room}?watch=1`);
  await early.waitForSelector('svg.board .piece', { timeout: 30_000 });
  await untilSpectators(host, 1, 1500);
  await host.waitForSelector('[data-testid=auto-play]', { timeout: 60_000 });
  await host.click('[data-testid=auto-play]');
  await host.waitForFunction(() => document.querySelectorAll('[data-testid=log] .entry').length >= 16
    && (document.querySelector('[data-testid=log] .combat-word') || document.querySelectorAll('[data-testid=log] .entry').length >= 60), null, { timeout: 180_000 });
  await host.click('[data-testid=auto-play]');
  await host.waitForFunction(() => !document.querySelector('[data-testid=auto-mark]'), null, { timeout: 15_000 });
  // our turn: the game waits for us, and the logs stand still
  await host.waitForSelector('svg.board .piece.selectable', { timeout: 60_000 });
  await host.waitForTimeout(500);
  const hostLog = await logLines(host), earlyLog = await logLines(early);
  assert.ok(hostLog.some((l) => /^\d+\|\d+你的/.test(l)), `the host's own moves name its pieces:\n${hostLog.join('\n')}`);
  assert.ok(!earlyLog.some((l) => /你的/.test(l)), 'a spectator has no pieces of its own');
  // the host reloads: its log reads exactly as before, own ranks included
  await host.reload();
  await host.waitForSelector('svg.board .piece.selectable', { timeout: 60_000 });
  await host.waitForFunction((n) => document.querySelectorAll('[data-testid=log] .entry').length >= n, hostLog.length, { timeout: 15_000 });
  assert.deepEqual(await logLines(host), hostLog, "the host's log after a reload");
  await untilSpectators(host, 1, 3000);

  // a visitor: never logged in, a phone
  const context = await shared.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'zh-CN', hasTouch: true, isMobile: true });
  const visitor = await context.newPage();
  visitor.errors = [];
  visitor.on('pageerror', (e) => visitor.errors.push(String(e)));
  await visitor.goto(url + '/#/lobby');
  const row = `[data-testid=live-game][data-room="${room}"]`;
  // the lobby's first screen on a phone: three tabs, the live games one tap away, with their count
  const tab = await visitor.waitForSelector('[data-testid=lobby-tab-games]');
  const tabBox = await tab.boundingBox();
  assert.ok(tabBox.y + tabBox.height <= 844 && tabBox.height >= 40, `the 观战 tab on the first screen: ${JSON.stringify(tabBox)}`);
  await visitor.waitForFunction(() => /观战\s*\d/.test(document.querySelector('[data-testid=lobby-tab-games]').textContent), null, { timeout: 15_000 });
  await visitor.tap('[data-testid=lobby-tab-games]');
  await visitor.waitForSelector(row, { timeout: 30_000 });
  const rowBox = await visitor.$eval(row, (r) => r.getBoundingClientRect().toJSON());
  assert.ok(rowBox.top >= 0 && rowBox.bottom <= 844, `the game's row on the first screen: ${JSON.stringify(rowBox)}`);
  assert.doesNotMatch(await visitor.textContent('[data-testid=live-games]'), /登录后/, 'no "log in first"');
  await visitor.tap(`${row} [data-testid=watch-game]`);
  await visitor.waitForSelector('svg.board .piece', { timeout: 30_000 });
  assert.equal(visitor.url().split('#/room/')[1].split('?')[0], room);
  // read-only, as any spectator: every piece of a game in play is a back (a flag only once revealed)
  const shown = await visitor.$$eval('svg.board .piece', (ps) => ps.map((p) => ({ back: p.classList.contains('back'), text: p.textContent.trim() })));
  assert.ok(shown.length >= 80, `${shown.length} pieces`);
  const faces = shown.filter((p) => !p.back && !/旗/.test(p.text));
  assert.deepEqual(faces, [], 'no rank is shown to a visitor');
  // it is told it watches as a visitor, on the first screen
  const note = await visitor.waitForSelector('[data-testid=visitor-note]');
  const box = await note.boundingBox();
  assert.ok(box && box.y >= 0 && box.y + box.height <= 844, `the note on the first screen: ${JSON.stringify(box)}`);
  assert.match(await note.textContent(), /访客身份观战/);
  // no guest was made: the browser has no session
  const me = await visitor.evaluate(async () => (await fetch('/api/auth/me')).status);
  assert.equal(me, 401, 'a visitor is not logged in');
  assert.equal(await visitor.evaluate(() => localStorage.getItem('siguo_session')), '0');
  // the late visitor's log reads as the log of the spectator who watched every move live
  await visitor.waitForFunction((n) => document.querySelectorAll('[data-testid=log] .entry').length >= n, earlyLog.length, { timeout: 15_000 });
  assert.deepEqual(await logLines(visitor), earlyLog, "a late spectator's log");

  // the player sees the visitor come within a second or so, and go
  const inMs = await untilSpectators(host, 2, 1500);
  await context.close();
  const outMs = await untilSpectators(host, 1, 1500);
  console.log(`观众 count: +1 after ${inMs} ms, −1 after ${outMs} ms`);
  assert.deepEqual(visitor.errors, []);
  assert.deepEqual(host.errors, []);
  await early.context().close();
  await host.context().close();
});
