// Hidden Front (两人军棋) in the browser: the real server, the real web client, Debian's chromium.
// A practice game against the computer played to its end as South (deployment, swaps, formation,
// battle with the counters and a draw offer that lapses, full reveal, replay), a game as North
// (the board turned: our side at the bottom) ended by surrender, and the phone width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildServer, startServer, launchBrowser, newPage, register, uniqueName, assertEnded } from './harness.js';
import { confirmDeployment, stationsWithLabel, clickStation, labelAt, playUntilOver, playSlowly } from './play.js';

let server, browser;

before(async () => {
  buildServer();
  // the test sets clocks shorter than hidden-front.md §6 (10 s a move) to keep the game quick
  server = await startServer({ SIGUO_LIVE_HIDDEN_FRONT_SHORT_CLOCKS: 'true' });
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const FAST = { move_seconds: 10, deploy_seconds: 30 };

/** In the lobby: pick 两人军棋, open the practice options, set the clocks and the side. */
async function startHiddenFront(page, seat = 'S') {
  await page.goto(server.url + '/#/lobby');
  await page.click('[data-testid=game-hidden_front]');
  await page.waitForSelector('[data-testid=game-hidden_front][aria-pressed=true]');
  await page.click('details summary');
  for (const [k, v] of Object.entries(FAST)) await page.fill(`details input[name=${k}]`, String(v));
  // Hidden Front's options only: no information mode, step limit or skip count.
  assert.equal(await page.$('details select[name=info_mode]'), null);
  assert.equal(await page.$('details input[name=max_steps]'), null);
  assert.equal(await page.inputValue('details select[name=mines]'), 'mutual');
  await page.selectOption('[data-testid=practice-seat]', seat);
  await page.click('[data-testid=practice]');
  await page.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
  await page.waitForSelector('svg.board[data-variant=hidden_front] .piece.face');
}

/** Stations of the pieces drawn, by class ('face' or 'back'). */
const drawn = (page, cls) => page.$$eval(`svg.board .layer-pieces .piece.${cls}`, gs => gs.map(g => g.getAttribute('data-station')));
const row = (station) => Number(station.slice(1));

test('Hidden Front: a practice game against the computer, played to its end as South; replay', { timeout: 900_000 }, async () => {
  const page = await newPage(browser, server.url);
  await register(page, server.url, uniqueName('两'));
  await startHiddenFront(page, 'S');

  // The 5 × 12 board: 60 stations, our 25 pieces in rows 7–12 with ranks, North's 25 as backs.
  assert.equal(await page.$$eval('svg.board .layer-stations .station', x => x.length), 60);
  assert.equal(await page.$$eval('svg.board .mountain', x => x.length), 2, 'the mountains at B and D');
  const faces = await drawn(page, 'face'), backs = await drawn(page, 'back');
  assert.equal(faces.length, 25);
  assert.equal(backs.length, 25);
  assert.ok(faces.every(s => row(s) >= 7), 'our pieces are South\'s');
  assert.ok(backs.every(s => row(s) <= 6));
  for (const camp of ['B8', 'D8', 'C9', 'B10', 'D10', 'B3', 'C4']) assert.ok(!faces.includes(camp) && !backs.includes(camp), `camp ${camp} empty`);
  // Our side at the bottom.
  const y = (st) => page.$eval(`svg.board .layer-stations [data-station="${st}"]`, g => g.getBoundingClientRect().y);
  assert.ok(await y('C12') > await y('C1'));
  assert.match(await page.textContent('[data-testid=room-game]'), /两人军棋/);
  assert.deepEqual(await page.$$eval('.seat-card', cs => cs.map(c => c.getAttribute('data-seat'))), ['S', 'N']);

  // A refused swap shows its reason: the flag stays in a headquarters.
  const flag = (await stationsWithLabel(page, '军旗'))[0];
  assert.ok(['B12', 'D12'].includes(flag), `the flag is in a headquarters: ${flag}`);
  await clickStation(page, flag);
  await clickStation(page, 'A7');
  const err = await page.waitForSelector('[data-testid=swap-error]');
  assert.match(await err.textContent(), /军旗/);
  assert.equal((await stationsWithLabel(page, '军旗'))[0], flag, 'the refused swap changed nothing');

  // A legal swap (rows 9: neither flag nor mine can be there, and bombs may).
  const a9 = await labelAt(page, 'A9'), e9 = await labelAt(page, 'E9');
  await clickStation(page, 'A9');
  await clickStation(page, 'E9');
  await page.waitForFunction((b) => document.querySelector('svg.board .layer-pieces [data-station="E9"] .piece-text')?.textContent === b, a9);
  assert.equal(await labelAt(page, 'A9'), e9);

  // Save the formation (for this game), re-randomize, load it back.
  const layout = () => page.$$eval('svg.board .layer-pieces .piece.face', gs => gs
    .map(g => g.getAttribute('data-station') + g.querySelector('.piece-text').textContent).sort().join());
  const saved = await layout();
  page.once('dialog', (d) => d.accept('两人阵'));
  await page.click('[data-testid=save-formation]');
  await page.waitForSelector('.toast.show:has-text("已保存")');
  await page.click('[data-testid=randomize]');
  for (let i = 0; i < 100 && (await layout()) === saved; i++) await page.waitForTimeout(100);
  assert.notEqual(await layout(), saved, 're-randomized');
  await page.click('[data-testid=load-formation]');
  await page.click('dialog .row:has-text("两人阵") button:has-text("载入阵型")');
  for (let i = 0; i < 100 && (await layout()) !== saved; i++) await page.waitForTimeout(100);
  assert.equal(await layout(), saved, 'the saved formation is loaded back');

  await confirmDeployment(page);
  await page.waitForSelector('[data-testid=substatus]:has-text("无交战")', { timeout: 60_000 });
  assert.match(await page.textContent('[data-testid=timeouts]'), /超时：南 0\/3 · 北 0\/3/);

  let offered = false;
  const moves = await playUntilOver(page, {
    onMove: async (n) => {
      if (offered) return;
      // A draw offer: the computer does not take it, and it lapses when its turn ends; the
      // same side may offer again only 10 steps later. The controls are redrawn with every
      // update, so click by selector (re-resolved on each try) and try again after the next
      // move if the button was being replaced the whole time.
      const clicked = await page.click('[data-testid=offer-draw]:not([disabled])', { timeout: 3000 })
        .then(() => true, () => false);
      if (!clicked) return;
      offered = true;
      await page.waitForSelector('[data-testid=draw-wait], [data-testid=result]', { timeout: 30_000 });
      await page.waitForSelector('[data-testid=log] .entry:has-text("和棋提议已失效"), [data-testid=result]', { timeout: 60_000 });
    },
  });
  assert.ok(moves > 0, 'we moved at least once');
  assert.ok(offered, 'a draw was offered');

  // Game over: a result told from our side, full reveal, the casualties of both sides.
  assert.match(await page.textContent('[data-testid=result]'), /你赢了|你输了|和棋/);
  await assertEnded(page);
  assert.ok((await page.textContent('[data-testid=result-reason]')).length > 0, 'the reason is told');
  assert.equal(await page.$$eval('svg.board .piece.back', x => x.length), 0, 'everything revealed at the end');
  assert.deepEqual(await page.$$eval('[data-testid=casualties] [data-seat]', rs => rs.map(r => r.getAttribute('data-seat'))), ['S', 'N']);

  // Replay: 50 pieces on the 5 × 12 board, stepping forward and back.
  await page.click('[data-testid=replay-link]');
  await page.waitForSelector('[data-testid=replay-board] svg.board[data-variant=hidden_front] .piece.face');
  assert.match(await page.textContent('[data-testid=replay-game]'), /两人军棋/);
  assert.equal(await page.$$eval('[data-testid=replay-board] .layer-pieces .piece', x => x.length), 50);
  await page.click('[data-testid=replay-next]');
  await page.waitForSelector('[data-testid=replay-pos]:has-text("第 1 /")');
  assert.match(await page.textContent('[data-testid=replay-counters]'), /第 1 步/);
  await page.click('[data-testid=replay-last]');
  await page.click('[data-testid=replay-prev]');
  const [, n, total] = /第 (\d+) \/ (\d+)/.exec(await page.textContent('[data-testid=replay-pos]'));
  assert.equal(Number(n), Number(total) - 1);
  assert.match(await page.textContent('[data-testid=replay-result]'), /你赢了|你输了|和棋/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('Hidden Front as North at phone width: the board turned, our side at the bottom; surrender', { timeout: 600_000 }, async () => {
  const page = await newPage(browser, server.url, { width: 360, height: 740 });
  await register(page, server.url, uniqueName('北'));
  await page.goto(server.url + '/#/lobby');
  const overflow = () => page.evaluate(() => document.scrollingElement.scrollWidth - window.innerWidth);
  assert.ok(await overflow() <= 0, 'the lobby fits 360 px');
  await startHiddenFront(page, 'N');

  const faces = await drawn(page, 'face');
  assert.equal(faces.length, 25);
  assert.ok(faces.every(s => row(s) <= 6), 'our pieces are North\'s');
  const y = (st) => page.$eval(`svg.board .layer-stations [data-station="${st}"]`, g => g.getBoundingClientRect().y);
  const x = (st) => page.$eval(`svg.board .layer-stations [data-station="${st}"]`, g => g.getBoundingClientRect().x);
  assert.ok(await y('C1') > await y('C12'), 'North\'s back row at the bottom');
  assert.ok(await x('E6') < await x('A6'), 'column E on the left');
  const box = await page.$eval('svg.board', s => s.getBoundingClientRect().toJSON());
  // The whole tall board on the screen, with room under it for the phase (issue 28), its pieces
  // still big enough to tap.
  assert.ok(box.width <= 360 && box.bottom <= 740 - 150, `the board fits the phone: ${JSON.stringify(box)}`);
  const pw = await page.$eval('svg.board .piece-body', r => r.getBoundingClientRect().width);
  assert.ok(pw >= 30, `a piece is ${pw} px wide`);
  assert.ok(await overflow() <= 0, 'the room fits 360 px');

  await confirmDeployment(page);
  // South (the computer) moves first; then it is our turn.
  await page.waitForSelector('svg.board .piece.selectable', { timeout: 60_000 });
  page.once('dialog', (d) => d.accept());
  await page.click('[data-testid=surrender]');
  await page.waitForSelector('[data-testid=result]', { timeout: 30_000 });
  assert.match(await page.textContent('[data-testid=result]'), /你输了/);
  assert.match(await page.textContent('[data-testid=result-reason]'), /我方投降/);
  await assertEnded(page, { expect: { state: 'won', winner: 'S', reason: 'surrender' } });
  assert.equal(await page.$$eval('svg.board .piece.back', x => x.length), 0, 'everything revealed at the end');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// Issue 25: every Hidden Front practice game used to end 60 s after it was made (the computer
// "escaped"). With the default options, a person who takes their time plays on for more than
// twice the reconnect grace (60 s): the game goes on, or ends by a rule, and nobody is away.
test('Hidden Front practice with the default options: the computer is never away', { timeout: 600_000 }, async () => {
  const page = await newPage(browser, server.url);
  await register(page, server.url, uniqueName('慢'));
  await page.goto(server.url + '/#/lobby');
  await page.click('[data-testid=game-hidden_front]');
  await page.waitForSelector('[data-testid=game-hidden_front][aria-pressed=true]');
  await page.click('[data-testid=practice]');
  await page.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
  const game = /#\/room\/g(\d+)/.exec(page.url())?.[1];
  assert.ok(game, 'a practice game\'s room: ' + page.url());
  const record = () => page.evaluate(async (id) => (await fetch('/api/games/' + id)).json(), game);
  assert.deepEqual((await record()).options.move_seconds, 30, 'the default clocks');
  await confirmDeployment(page);
  const moves = await playSlowly(page, { ms: 130_000, thinkMs: 5_000 });
  assert.ok(moves > 5, `we played on (${moves} moves)`);
  if (await page.$('[data-testid=result]')) {
    await assertEnded(page);
  } else {
    const g = await record();
    assert.equal(g.state, 'battle', 'still played after twice the grace');
    assert.deepEqual(g.players.filter(p => p.escaped), [], 'nobody escaped');
    assert.doesNotMatch(await page.textContent('body'), /断线超时|对方断线/);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
