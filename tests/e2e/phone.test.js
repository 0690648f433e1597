// Issue 38, a phone player's game as the hand and the eye meet it on a 390 × 844 touch screen:
// the battle's phase and last move right under the board (§13), a your-turn notice that hides
// nothing (§2), every piece and target taking a tap anywhere in its 40 × 40 box on the zoomed
// board (§1), a partner's chat line by its plate and an unread badge on the first screen (§3),
// a four-player practice surrender that leaves the partner bot playing until we leave (§12), and
// the header at 360 px in both languages (§5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedServer, newPage, register, uniqueName } from './harness.js';
import { confirmDeployment } from './play.js';

const shared = sharedServer();
const PHONE = { viewport: { width: 390, height: 844 }, locale: 'zh-CN', hasTouch: true, isMobile: true };

async function phonePage() {
  const context = await shared.browser.newContext(PHONE);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('dialog', (d) => d.accept());
  await page.goto(shared.server.url + '/');
  return page;
}

const rect = (page, sel) => page.$eval(sel, (e) => e.getBoundingClientRect().toJSON()).catch(() => null);

/**
 * For each station of `sel` (pieces or targets with data-station): scrolled into the zoomed
 * board's view, a tap on the centre and on each corner of the 40 × 40 box around it hits that
 * station, nothing else (no notice, no neighbour). Returns the misses.
 */
async function tapBoxMisses(page, sel) {
  return page.$$eval(sel, async (els) => {
    const misses = [];
    const wrap = document.querySelector('[data-testid=board]');
    for (const g of els) {
      const name = g.getAttribute('data-station');
      const body = g.querySelector('.piece-body') || g;
      const r0 = body.getBoundingClientRect();
      // the station in the middle of the scrolled board
      wrap.scrollLeft += r0.left + r0.width / 2 - (wrap.getBoundingClientRect().left + wrap.clientWidth / 2);
      wrap.scrollTop += r0.top + r0.height / 2 - (wrap.getBoundingClientRect().top + wrap.clientHeight / 2);
      const r = body.getBoundingClientRect();
      const [cx, cy] = [r.left + r.width / 2, r.top + r.height / 2];
      for (const [dx, dy] of [[0, 0], [-19.5, -19.5], [19.5, -19.5], [-19.5, 19.5], [19.5, 19.5]]) {
        const hit = document.elementFromPoint(cx + dx, cy + dy);
        const at = hit && hit.closest('[data-station]');
        if (!at || at.getAttribute('data-station') !== name) misses.push(`${name} (${dx},${dy}) → ${at ? at.getAttribute('data-station') : hit && hit.className && (hit.className.baseVal ?? hit.className)}`);
      }
    }
    return misses;
  }, sel);
}

test('a four-player practice game on a phone: the phase and the last move under the board, a notice that hides nothing, 40 × 40 taps on the zoomed board, surrender and the bots play on', { timeout: 600_000 }, async () => {
  const page = await phonePage();
  await register(page, shared.server.url, uniqueName('机'));
  await page.goto(shared.server.url + '/#/lobby');
  await page.tap('[data-testid=practice]');
  await confirmDeployment(page);
  await page.waitForSelector('svg.board .layer-pieces .piece.selectable', { timeout: 60_000 });

  // §2: our turn glows on the board's border and pulses the status line; nothing lies over the board
  const notice = await page.evaluate(() => ({
    overlay: !!document.querySelector('.announce'),
    glow: document.querySelector('[data-testid=board]').classList.contains('announcing') || document.querySelector('[data-testid=board]').dataset.announce || null,
    status: document.querySelector('[data-testid=status]').textContent,
  }));
  assert.equal(notice.overlay, false, 'no notice box over the board');
  assert.match(notice.status, /轮到你/);

  // §13: the board, then at once the phase (whose turn, the step) and the last moves, all on the first screen
  const board = await rect(page, '[data-testid=board]');
  assert.ok(board.width >= 385 && board.bottom <= 844 * 0.62, `the board: ${JSON.stringify(board)}`);
  await page.waitForSelector('[data-testid=log] .entry');
  const status = await rect(page, '[data-testid=status]');
  const line = await rect(page, '[data-testid=log] .entry');
  const chat = await rect(page, '[data-testid=chat-jump]');
  assert.ok(status.top >= board.bottom && status.bottom <= 844, `the phase under the board: ${JSON.stringify(status)}`);
  assert.ok(line.top >= board.bottom && line.bottom <= 844, `the last move on the first screen: ${JSON.stringify(line)}`);
  assert.ok(chat.top >= board.bottom && chat.bottom <= 844 && chat.height >= 28, `the chat button on the first screen: ${JSON.stringify(chat)}`);
  await page.screenshot({ path: '/tmp/siguo-shots/phone-battle.png' }).catch(() => {});

  // §1: zoomed, a station's cell is at least 40 × 40 and every piece we may move takes a tap
  // anywhere in it (first during the turn's notice, when it glows)
  await page.tap('[data-testid=zoom]');
  const cell = await page.$eval('svg.board .layer-pieces .piece.selectable .hit', (r) => r.getBoundingClientRect().toJSON());
  assert.ok(cell.width >= 40 && cell.height >= 40, `a station's tap box: ${cell.width} × ${cell.height}`);
  assert.deepEqual(await tapBoxMisses(page, 'svg.board .layer-pieces .piece.selectable'), [], 'taps that miss a piece');
  // a piece, tapped near its box's corner (off its body), then each target likewise
  const from = await page.$eval('svg.board .layer-pieces .piece.selectable', (g) => g.getAttribute('data-station'));
  const tapCorner = async (sel) => {
    const r = await rect(page, sel);
    await page.touchscreen.tap(r.left + r.width / 2 + 15, r.top + r.height / 2 + 15);
  };
  await page.$eval(`svg.board .layer-pieces [data-station="${from}"]`, (g) => g.scrollIntoView({ block: 'center', inline: 'center' }));
  await tapCorner(`svg.board .layer-pieces [data-station="${from}"] .hit`);
  await page.waitForSelector('svg.board .layer-targets .hit');
  assert.equal(await page.$eval('svg.board .piece.selected', (g) => g.getAttribute('data-station')), from, 'the tap selected the piece');
  assert.deepEqual(await tapBoxMisses(page, 'svg.board .layer-targets .hit'), [], 'taps that miss a target');
  const to = await page.$eval('svg.board .layer-targets .hit', (r) => r.getAttribute('data-station'));
  await page.$eval(`svg.board .layer-targets .hit[data-station="${to}"]`, (g) => g.scrollIntoView({ block: 'center', inline: 'center' }));
  await tapCorner(`svg.board .layer-targets .hit[data-station="${to}"]`);
  await page.waitForSelector('[data-testid=log] .entry:has-text("你的")', { timeout: 40_000 });
  await page.screenshot({ path: '/tmp/siguo-shots/phone-zoomed.png' }).catch(() => {});
  await page.tap('[data-testid=zoom]');

  // §12: we surrender; our partner bot (North) plays on while we watch, until we leave
  await page.waitForSelector('[data-testid=surrender]');
  await page.tap('[data-testid=surrender]');
  const out = await page.waitForSelector('[data-testid=out-line]', { timeout: 15_000 });
  assert.match(await out.textContent(), /队友继续作战/);
  const leave = await rect(page, '[data-testid=leave-game]');
  assert.ok(leave.bottom <= 844, `leave on the first screen: ${JSON.stringify(leave)}`);
  const northMoves = () => page.$$eval('[data-testid=log] .entry', (rows) => rows.filter((r) => /^北/.test(r.textContent.replace(/^\d+/, '').trim())).length);
  const before = await northMoves();
  await page.waitForFunction((n) => [...document.querySelectorAll('[data-testid=log] .entry')]
    .filter((r) => /^北/.test(r.textContent.replace(/^\d+/, '').trim())).length >= n + 2, before, { timeout: 120_000 });
  assert.equal(await page.$('[data-testid=result]'), null, 'the game goes on');
  const game = page.url().split('#/room/g')[1];
  await page.tap('[data-testid=leave-game]');
  await page.waitForFunction(() => location.hash.startsWith('#/lobby'));
  // leaving ends it as before: East–West win, the bots of our team having given up
  const g = await page.waitForFunction(async (id) => {
    const r = await fetch('/api/games/' + id).then((x) => x.json());
    return r.state === 'finished' ? r : null;
  }, game, { timeout: 30_000, polling: 250 }).then((h) => h.jsonValue());
  assert.deepEqual(g.result, { state: 'won', winner: 'EW', reason: 'elimination' });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('two people and two bots, on a phone: a partner\'s chat line by its plate and an unread badge on the first screen', { timeout: 300_000 }, async () => {
  const host = await phonePage();
  await register(host, shared.server.url, uniqueName('主'));
  const partner = await newPage(shared.browser, shared.server.url);
  partner.on('dialog', (d) => d.accept());
  await register(partner, shared.server.url, uniqueName('友'));
  await host.goto(shared.server.url + '/#/lobby');
  await host.tap('[data-testid=create-room]');
  await host.tap('[data-testid=create-room-submit]');
  await host.waitForSelector('.seat-card.me[data-seat=S]');
  const room = host.url().split('#/room/')[1];
  await partner.goto(shared.server.url + '/#/room/' + room);
  await partner.click('[data-testid=sit-N]');
  for (const seat of ['E', 'W']) await host.tap(`[data-testid=bot-${seat}]`);
  for (const p of [host, partner]) {
    await p.waitForSelector('[data-testid=ready]');
    await p.click('[data-testid=ready]');
  }
  for (const p of [host, partner]) {
    await p.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
    await confirmDeployment(p);
  }
  await host.waitForSelector('[data-testid=log] .entry', { timeout: 60_000 });
  // the partner says something: the host sees it by the partner's plate, over no station, and
  // the chat button under the board counts it
  await partner.click('[data-testid=quick-chat] button >> nth=0');
  const said = await partner.getAttribute('[data-testid=quick-chat] button >> nth=0', 'data-phrase');
  const bubble = await host.waitForSelector('[data-testid=bubble][data-seat=N]', { timeout: 10_000 });
  assert.equal(await bubble.textContent(), said);
  const b = await bubble.boundingBox();
  assert.ok(b.y >= 0 && b.y + b.height <= 844, `the line on the first screen: ${JSON.stringify(b)}`);
  const covered = await host.$$eval('svg.board .layer-pieces .piece-body, svg.board .layer-stations *', (els, bb) => els
    .map((e) => e.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.left < bb.x + bb.width && r.right > bb.x && r.top < bb.y + bb.height && r.bottom > bb.y).length, b);
  assert.equal(covered, 0, 'the chat line covers no piece or station');
  const badge = await host.waitForSelector('[data-testid=chat-unread]:visible');
  assert.equal(await badge.textContent(), '1');
  const jump = await rect(host, '[data-testid=chat-jump]');
  assert.ok(jump.bottom <= 844, `the chat button on the first screen: ${JSON.stringify(jump)}`);
  // one tap: the chat in view, the line in it, the badge gone
  await host.tap('[data-testid=chat-jump]');
  await host.waitForSelector('[data-testid=chat-unread]', { state: 'hidden' });
  const log = await rect(host, '[data-testid=chat-log]');
  assert.ok(log.top >= 0 && log.bottom <= 844, `the chat in view: ${JSON.stringify(log)}`);
  assert.match(await host.textContent('[data-testid=chat-log]'), new RegExp(said));
  await host.waitForSelector('[data-testid=bubble]', { state: 'detached', timeout: 10_000 });
  assert.deepEqual(host.errors, []);
  assert.deepEqual(partner.errors, []);
  await host.context().close();
  await partner.context().close();
});

test('the header at 360 px in both languages: who we are and ☰ in the bar, every page one tap away in the menu', { timeout: 120_000 }, async () => {
  const context = await shared.browser.newContext({ ...PHONE, viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(shared.server.url + '/');
  await register(page, shared.server.url, uniqueName('头'));
  for (const lang of ['zh', 'en']) {
    if (lang === 'en') {
      await page.tap('[data-testid=menu-btn]');
      await page.tap('.lang-btn');
    }
    await page.goto(shared.server.url + '/#/lobby');
    await page.waitForSelector('[data-testid=whoami]');
    // the bar: nothing past its right edge, nothing cut
    const bar = await page.$$eval('.topbar > :not(.menu), .topbar .brand *', (els) => els
      .filter((e) => e.getBoundingClientRect().width > 0)
      .map((e) => ({ text: e.textContent.trim(), right: e.getBoundingClientRect().right, cut: e.scrollWidth > e.clientWidth + 1 && !e.classList.contains('who') })));
    assert.deepEqual(bar.filter((e) => e.right > 360 || e.cut), [], `${lang}: the bar's items fit`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360, `${lang}: no sideways scroll`);
    // ☰: every page and the account's links, each whole and a full 44 px line
    await page.tap('[data-testid=menu-btn]');
    const items = await page.$$eval('.menu a, .menu button', (els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom, h: r.height, cut: e.scrollWidth > e.clientWidth + 1 };
    }));
    const want = lang === 'zh' ? ['大厅', '排行榜', '我的战绩', '规则', '退出'] : ['Lobby', 'Leaderboard', 'My games', 'Rules', 'Log out'];
    for (const w of want) assert.ok(items.some((i) => i.text.startsWith(w)), `${lang}: ${w} in the menu: ${JSON.stringify(items)}`);
    const bad = items.filter((i) => i.left < 0 || i.right > 360 || i.bottom > 740 || i.h < 44 || i.cut);
    assert.deepEqual(bad, [], `${lang}: menu items off screen, cut or under 44 px`);
    await page.screenshot({ path: `/tmp/siguo-shots/phone-menu-${lang}.png` }).catch(() => {});
    // a tap on a page goes there and folds the menu
    await page.tap('.menu a[href^="#/leaderboard"]');
    await page.waitForFunction(() => location.hash.startsWith('#/leaderboard'));
    assert.equal(await page.isVisible('.menu'), false, `${lang}: the menu folds`);
  }
  // on a desktop, in English, every header item is whole in the bar
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(shared.server.url + '/#/lobby');
  const wide = await page.$$eval('.nav a, .account a, .account button, .me *', (els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    return { text: e.textContent.trim(), visible: r.width > 0, cut: e.scrollWidth > e.clientWidth + 1, right: r.right };
  }));
  assert.ok(wide.every((i) => i.visible && !i.cut && i.right <= 1280), JSON.stringify(wide));
  assert.deepEqual(page.errors, []);
  await context.close();
});
