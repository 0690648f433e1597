// Issue 28 (the server's parts), in the browser as a person sees them: 托管 (the computer plays
// our seat and its mark shows; taking it back stops it), the move log after a reload, and 再来一局
// after a practice game (a second game in the same room); a public room's game listed in another
// person's lobby while it is played, opened from there as a spectator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedServer, newPage, register, uniqueName, assertEnded } from './harness.js';
import { confirmDeployment, botRoom, logLines } from './play.js';

const shared = sharedServer();


test('托管, the log after a reload, and 再来一局 in a Hidden Front practice game', { timeout: 600_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url);
  page.on('dialog', (d) => d.accept());
  await register(page, shared.server.url, uniqueName('托'));
  await page.goto(shared.server.url + '/#/lobby');
  await page.click('[data-testid=game-hidden_front]');
  await page.waitForSelector('[data-testid=game-hidden_front][aria-pressed=true]');
  await page.click('[data-testid=practice]');
  await page.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
  const room = page.url().split('#/room/')[1];
  await confirmDeployment(page);
  await page.waitForSelector('[data-testid=auto-play]', { timeout: 60_000 });

  // 托管: the computer plays our seat (moves are made without us), and the seat is marked
  await page.click('[data-testid=auto-play]');
  await page.waitForSelector('[data-testid=auto-mark]', { timeout: 15_000 });
  // the computer plays on until the log has a combat in it (or many moves)
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=log] .entry').length >= 10
    && (document.querySelector('[data-testid=log] .combat-word') || document.querySelectorAll('[data-testid=log] .entry').length >= 40), null, { timeout: 120_000 });
  assert.equal(await page.getAttribute('[data-testid=auto-play]', 'aria-pressed'), 'true');
  // taken back: the mark goes and the game waits for us again
  await page.click('[data-testid=auto-play]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=auto-mark]'), null, { timeout: 15_000 });
  await page.waitForSelector('svg.board .piece.selectable', { timeout: 30_000 });
  await page.waitForTimeout(500);
  const before = await logLines(page);
  assert.ok(before.length >= 10, `lines in the log: ${before.length}`);
  assert.ok(before.some((l) => /^\d+\|\d+你的/.test(l)), `our own moves name our pieces: ${before.join('\n')}`);

  // the log after a reload reads exactly as before (the server sends the game's past events
  // and what we saw of each move's pieces): every line, our own ranks included
  await page.reload();
  await page.waitForSelector('svg.board .piece.selectable', { timeout: 60_000 });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] .entry').length >= n, before.length, { timeout: 15_000 });
  assert.deepEqual(await logLines(page), before, 'the log after a reload');

  // surrender, then 再来一局: a new game in the same room, deploying again
  await page.click('[data-testid=surrender]');
  await page.waitForSelector('[data-testid=result]', { timeout: 30_000 });
  await assertEnded(page, { expect: { state: 'won', winner: 'N', reason: 'surrender' } });
  await page.click('[data-testid=rematch]');
  await page.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
  assert.equal(await page.$('[data-testid=result]'), null, 'the result box is gone: a new game');
  assert.equal(page.url().split('#/room/')[1], room, 'the same room');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a public room\'s game in progress is listed in the lobby and opened as a spectator', { timeout: 600_000 }, async () => {
  const host = await newPage(shared.browser, shared.server.url);
  host.on('dialog', (d) => d.accept());
  await register(host, shared.server.url, uniqueName('主'));
  const room = await botRoom(host, shared.server.url);

  const watcher = await newPage(shared.browser, shared.server.url);
  await register(watcher, shared.server.url, uniqueName('观'));
  await watcher.goto(shared.server.url + '/#/lobby');
  const row = `[data-testid=live-game][data-room="${room}"]`;
  await watcher.waitForSelector(row, { timeout: 30_000 });
  assert.match(await watcher.textContent(row), /电脑|bot/i, 'the players are named');
  await watcher.click(`${row} [data-testid=watch-game]`);
  await watcher.waitForSelector('svg.board .piece', { timeout: 30_000 });
  assert.equal(watcher.url().split('#/room/')[1], room);
  // while the game is played a spectator sees the pieces as backs (only a revealed flag shows)
  await watcher.waitForSelector('svg.board .piece.back', { timeout: 15_000 });
  assert.deepEqual(watcher.errors, []);
  await watcher.context().close();
  await host.context().close();
});
