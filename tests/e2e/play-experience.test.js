// Issue 16, "play experience", in the browser: a round you can follow (numbered moves, a log in
// words naming our pieces, bot pacing), marks that survive a reload, the casualties panel, the
// board's size on a laptop and a phone, the replay's controls in view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedServer, startServer, newPage, register, uniqueName, assertEnded } from './harness.js';
import { confirmDeployment, clickStation, playUntilOver, labelsPastTheirPieces } from './play.js';

const shared = sharedServer();

async function practice(page, url, { maxSteps = 60 } = {}) {
  await register(page, url, uniqueName('玩'));
  await page.goto(url + '/#/lobby');
  await page.click('details summary');
  for (const [k, v] of Object.entries({ max_steps: maxSteps, move_seconds: 10, deploy_seconds: 30 })) await page.fill(`details input[name=${k}]`, String(v));
  await page.click('[data-testid=practice]');
  await confirmDeployment(page);
}

/** Make one move when it is our turn (first piece, first destination). */
async function moveOnce(page) {
  await page.waitForSelector('svg.board .layer-pieces .piece.selectable', { timeout: 30_000 });
  const from = await page.$eval('svg.board .layer-pieces .piece.selectable', g => g.getAttribute('data-station'));
  await clickStation(page, from);
  const to = await page.waitForSelector('svg.board .layer-targets .target', { timeout: 5000 }).then(t => t.getAttribute('data-station'));
  await clickStation(page, to);
  await page.waitForFunction(() => !document.querySelector('svg.board .piece.selectable'), null, { timeout: 10_000 }).catch(() => {});
}

test('a practice round at 1280 × 800: big board, numbered moves, the log in words, a mark kept over a reload, casualties, the replay controls in view', { timeout: 600_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url, { width: 1280, height: 800 });
  await practice(page, shared.server.url);
  // The battle is announced, in the log too.
  await page.waitForSelector('[data-testid=log] .entry:has-text("对战开始")', { timeout: 60_000 });

  // Size: the board takes most of the height; a piece is at least 40 px wide with its rank inside.
  const size = await page.evaluate(() => {
    const b = document.querySelector('svg.board').getBoundingClientRect();
    const p = document.querySelector('svg.board .piece.face .piece-body').getBoundingClientRect();
    const t = document.querySelector('svg.board .piece.face .piece-text').getBoundingClientRect();
    return { h: b.height, bottom: b.bottom, pw: p.width, ph: p.height, tw: t.width };
  });
  assert.ok(size.h >= 0.7 * 800, `board height ${size.h}`);
  assert.ok(size.bottom <= 800 + 1, 'the whole board is in view');
  assert.ok(size.pw >= 40 && size.ph >= 26, `piece ${size.pw} × ${size.ph}`);
  assert.ok(size.tw <= size.pw, 'the rank text fits its piece');

  // Our move, then the bots': every move since ours stays numbered on the board, in words in the log.
  await moveOnce(page);
  await page.waitForSelector('[data-testid=log] .entry:has-text("你的")');
  await page.waitForSelector('svg.board .piece.selectable', { timeout: 30_000 });
  const numbers = await page.$$eval('svg.board .move-no', gs => gs.map(g => Number(g.getAttribute('data-move-no'))));
  assert.equal(numbers.length, 4, 'our move and the three since, numbered');
  // the board's numbers are the log's (issue 28): the four newest moves of the log
  const logNos = await page.$$eval('[data-testid=log] .entry[data-no]:not([data-no=""])', es => es.map(e => Number(e.dataset.no)));
  assert.deepEqual(numbers, logNos.slice(0, 4).reverse(), `board ${numbers} against the log ${logNos}`);
  const log = await page.$$eval('[data-testid=log] .entry', es => es.map(e => e.textContent));
  assert.ok(log.every(l => !/[NESW][a-e][1-6]|C[a-c][1-3]/.test(l)), 'no coordinates in the log: ' + log.join(' | '));
  // Hovering a log line stresses its move on the board.
  await page.hover('[data-testid=log] .entry[data-no]:not([data-no=""])');
  await page.waitForSelector('svg.board .recent-move.highlight');

  // Mark an enemy piece of a back row (those never move): it shows, and survives a reload.
  const enemy = await page.$eval('svg.board .layer-pieces .piece.back[data-station^="E"][data-station$="6"]', g => g.getAttribute('data-station'));
  await page.click(`svg.board .layer-pieces [data-station="${enemy}"]`, { button: 'right', force: true });
  await page.click('[data-testid=mark-menu] button[data-mark="M"]');
  const markAt = (st) => page.$eval('svg.board', (svg, st) => svg.querySelector(`.layer-pieces [data-station="${st}"] .piece-text.mark`)?.textContent || '', st);
  assert.equal(await markAt(enemy), '地');
  await page.reload();
  await page.waitForSelector('svg.board .piece.back', { timeout: 30_000 });
  await page.waitForFunction((st) => document.querySelector(`svg.board .layer-pieces [data-station="${st}"] .piece-text.mark`), enemy, { timeout: 10_000 });
  assert.equal(await markAt(enemy), '地', 'the mark survives a reload');

  // Play on until some seat has lost a piece: the casualties panel counts it.
  let lost = 0;
  for (let i = 0; i < 40 && !lost; i++) {
    if (await page.$('[data-testid=result]')) break;
    await moveOnce(page).catch(() => {});
    lost = await page.$$eval('[data-testid=casualties] .row', rs => rs.reduce((n, r) => n + Number(r.getAttribute('data-lost')), 0));
  }
  assert.ok(lost > 0, 'the casualties panel counts a loss');
  const left = await page.$$eval('[data-testid=casualties] .row', rs => rs.map(r => r.textContent));
  assert.ok(left.every(t => /剩 \d+/.test(t)), 'remaining counts shown');

  // To the end; the result's reason never contradicts the outcome.
  await playUntilOver(page);
  const result = await page.textContent('[data-testid=result]');
  if (/落败/.test(result)) assert.doesNotMatch(result, /对方两家全部出局/);
  if (/获胜/.test(result)) assert.doesNotMatch(result, /我方两家全部出局/);
  await assertEnded(page);
  assert.equal(await page.$$eval('[data-testid=casualties] .chip.back', x => x.length), 0, 'every lost piece named at the end');

  // The replay: its controls in view beside the board, and stepping does not scroll.
  await page.click('[data-testid=replay-link]');
  await page.waitForSelector('[data-testid=replay-board] .piece.face');
  const next = await page.$eval('[data-testid=replay-next]', b => { const r = b.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; });
  assert.ok(next.top >= 0 && next.bottom <= 800, `replay controls in view: ${JSON.stringify(next)}`);
  assert.match(await page.textContent('[data-testid=replay-controls]'), /←/, 'the keys are told');
  const y0 = await page.evaluate(() => scrollY);
  await page.click('[data-testid=replay-next]');
  await page.waitForSelector('[data-testid=replay-pos]:has-text("第 1 /")');
  assert.equal(await page.evaluate(() => scrollY), y0, 'stepping keeps the board in place');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a phone (390 × 844): the board is as wide as the screen; zoomed, tap targets are at least 32 px', { timeout: 600_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url, { width: 390, height: 844 });
  await practice(page, shared.server.url);
  await page.waitForSelector('svg.board .piece.back', { timeout: 60_000 });
  const w = await page.$eval('svg.board', s => s.getBoundingClientRect().width);
  assert.ok(w >= 385, `board width ${w}`);
  assert.equal(await page.$eval('.kb-hint', e => getComputedStyle(e).display), 'none', 'no keyboard hint on a phone');
  await page.click('[data-testid=zoom]');
  // every drawn piece (a piece being re-drawn has no box yet: width 0) is a 32 px tap target
  const widths = () => page.$$eval('svg.board .piece-body', rs => rs.map(r => r.getBoundingClientRect().width).filter(w => w > 0));
  await page.waitForFunction(() => [...document.querySelectorAll('svg.board .piece-body')].some(r => r.getBoundingClientRect().width >= 32), null, { timeout: 10_000 });
  const pw = Math.min(...await widths());
  assert.ok(pw >= 32, `zoomed piece ${pw}`);
  // Zoomed, the board opens on our own pieces (it opened cut off, on its left part: issue 28),
  // and its left edge is a scroll away.
  const zoom = await page.evaluate(() => {
    const wrap = document.querySelector('[data-testid=board]').getBoundingClientRect();
    const mine = [...document.querySelectorAll('svg.board .piece.face .piece-body')].map(g => g.getBoundingClientRect());
    return { inView: mine.filter(r => r.left >= wrap.left - 1 && r.right <= wrap.right + 1).length, total: mine.length };
  });
  assert.ok(zoom.total > 0 && zoom.inView === zoom.total, `zoomed, our pieces in view: ${zoom.inView} of ${zoom.total}`);
  await page.$eval('[data-testid=board]', w => { w.scrollLeft = 0; });
  const left = await page.evaluate(() => document.querySelector('svg.board').getBoundingClientRect().left - document.querySelector('[data-testid=board]').getBoundingClientRect().left);
  assert.ok(left >= -3, `the zoomed board's left edge is reachable: ${left}`);

  // Sound is off by default; switched on, it stays on over a reload.
  assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-pressed'), 'false');
  await page.click('[data-testid=sound]');
  assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-pressed'), 'true');
  await page.reload();
  await page.waitForSelector('svg.board .piece.back', { timeout: 60_000 });
  assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-pressed'), 'true');

  // Chat says where a message goes (a choice under the input, not tabs that look like filters).
  assert.match(await page.textContent('.send-to'), /发送给/);
  assert.equal(await page.$$eval('.send-to input[type=radio]', r => r.length), 2);

  // The English switch: the same page in English, and back.
  if (!await page.isVisible('.lang-btn')) await page.click('[data-testid=menu-btn]'); // a phone: in the ☰ menu
  await page.click('.lang-btn');
  await page.waitForSelector('.send-to:has-text("Send to")');
  // English rank names stay inside their pieces ("Bomb" ran past its piece: issue 28).
  await page.waitForSelector('svg.board .piece.face .piece-text.latin');
  const outside = await labelsPastTheirPieces(page);
  assert.deepEqual(outside, [], 'labels past their pieces');
  assert.equal(await page.getAttribute('.lang-btn', 'lang'), 'zh-CN');
  if (!await page.isVisible('.lang-btn')) await page.click('[data-testid=menu-btn]'); // a phone: in the ☰ menu
  await page.click('.lang-btn');
  await page.waitForSelector('.send-to:has-text("发送给")');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a logged-out visitor gets no 401 (lobby, leaderboards, a reload)', { timeout: 120_000 }, async () => {
  const context = await shared.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN' });
  const page = await context.newPage();
  const refused = [];
  page.on('response', r => { if (r.status() === 401) refused.push(r.url()); });
  for (const path of ['/', '/#/lobby', '/#/leaderboard']) {
    await page.goto(shared.server.url + path);
    await page.waitForLoadState('networkidle');
  }
  await page.reload();
  await page.waitForLoadState('networkidle');
  assert.deepEqual(refused, []);
  await context.close();
});

test('bots are paced: each bot move comes at least ~0.8 s after the move before it', { timeout: 600_000 }, async () => {
  const paced = await startServer({ SIGUO_LIVE_BOT_MOVE_DELAY_MS: '800' });
  try {
    const page = await newPage(shared.browser, paced.url);
    const moves = [];
    page.on('websocket', ws => ws.on('framereceived', f => {
      try {
        const m = JSON.parse(f.payload);
        if (m.type === 'update') for (const e of m.events || []) if (e.type === 'moved') moves.push({ seat: e.seat, at: Date.now() });
      } catch { /* not JSON */ }
    }));
    await practice(page, paced.url);
    await moveOnce(page);
    await page.waitForSelector('svg.board .piece.selectable', { timeout: 30_000 });
    const bots = moves.map((m, i) => ({ ...m, gap: i ? m.at - moves[i - 1].at : null })).filter(m => m.seat !== 'S' && m.gap != null);
    assert.ok(bots.length >= 3, JSON.stringify(moves));
    for (const m of bots) assert.ok(m.gap >= 700, `bot ${m.seat} answered after ${m.gap} ms`);
    await page.context().close();
  } finally {
    await paced.stop();
  }
});
