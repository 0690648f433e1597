// End-to-end tests: the real server, the real web client, Debian's chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sharedServer, newPage, register, uniqueName, assertEnded } from './harness.js';
import { confirmDeployment, stationsWithLabel, clickStation, labelAt, playUntilOver, screenshotStats } from './play.js';

const shared = sharedServer();

const FAST = { max_steps: 50, move_seconds: 10, deploy_seconds: 30 };

async function setPracticeOptions(page, opts) {
  await page.click('details summary');
  for (const [k, v] of Object.entries(opts)) await page.fill(`details input[name=${k}]`, String(v));
}

test('register, log out, log in, and the session survives a reload', { timeout: 600_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url);
  const name = uniqueName('甲');
  const password = await register(page, shared.server.url, name);
  await page.reload();
  await page.waitForSelector(`[data-testid=whoami]:has-text("${name}")`);
  await page.click('text=退出');
  await page.waitForSelector('a[href="#/login"]');
  await page.goto(shared.server.url + '/#/login');
  await page.fill('input[name=username]', name);
  await page.fill('input[name=password]', 'wrong-password-123');
  await page.click('button[type=submit]');
  await page.waitForSelector('[data-testid=auth-error]:not(:empty)');
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForSelector(`[data-testid=whoami]:has-text("${name}")`);
  await page.reload();
  await page.waitForSelector(`[data-testid=whoami]:has-text("${name}")`);
  // The page is in Chinese by default and switches to English.
  assert.ok(await page.$('text=大厅'));
  if (!await page.isVisible('.lang-btn')) await page.click('[data-testid=menu-btn]'); // a phone: in the ☰ menu
  await page.click('.lang-btn');
  await page.waitForSelector('text=Lobby');
  if (!await page.isVisible('.lang-btn')) await page.click('[data-testid=menu-btn]'); // a phone: in the ☰ menu
  await page.click('.lang-btn');
  await page.waitForSelector('text=大厅');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a practice game against bots, played to its end; refused swap; battle screenshot; replay', { timeout: 600_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url);
  await register(page, shared.server.url, uniqueName('练'));
  await page.goto(shared.server.url + '/#/lobby');
  await setPracticeOptions(page, FAST);
  await page.click('[data-testid=practice]');
  await page.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });

  // The board works with the keyboard: arrows move a cursor, Enter picks, Escape drops.
  await page.focus('svg.board');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('svg.board .piece.selected[data-station="Sc1"]');
  await page.keyboard.press('Escape');
  await page.waitForSelector('svg.board .piece.selected', { state: 'detached' });

  // A refused swap shows its reason: the flag may not leave the headquarters.
  const flag = (await stationsWithLabel(page, '军旗'))[0];
  assert.ok(flag, 'own flag is shown with its rank');
  const front = (await page.$$eval('svg.board .piece.face', gs => gs.map(g => g.getAttribute('data-station'))))
    .find(s => /^S[a-e]1$/.test(s));
  await clickStation(page, flag);
  await clickStation(page, front);
  const err = await page.waitForSelector('[data-testid=swap-error]');
  assert.match(await err.textContent(), /军旗|flag/);
  assert.equal((await stationsWithLabel(page, '军旗'))[0], flag, 'the refused swap changed nothing');

  // A legal swap: two pieces of the middle rows.
  const before = await labelAt(page, 'Sa3');
  const other = await labelAt(page, 'Se3');
  assert.ok(before && other, 'own ranks are drawn');
  await clickStation(page, 'Sa3');
  await clickStation(page, 'Se3');
  await page.waitForFunction((b) => document.querySelector('svg.board .layer-pieces [data-station="Se3"] .piece-text')?.textContent === b, before);
  assert.equal(await labelAt(page, 'Sa3'), other);

  // Save the formation, re-randomize, load it back.
  const layout = () => page.$$eval('svg.board .layer-pieces .piece.face', gs => gs
    .map(g => g.getAttribute('data-station') + g.querySelector('.piece-text').textContent).sort().join());
  const saved = await layout();
  page.once('dialog', (d) => d.accept('阵型一'));
  await page.click('[data-testid=save-formation]');
  await page.waitForSelector('.toast.show:has-text("已保存")');
  await page.click('[data-testid=randomize]');
  for (let i = 0; i < 100 && (await layout()) === saved; i++) await page.waitForTimeout(100);
  assert.notEqual(await layout(), saved, 're-randomized');
  await page.click('[data-testid=load-formation]');
  await page.click('dialog button:has-text("载入阵型")');
  for (let i = 0; i < 100 && (await layout()) !== saved; i++) await page.waitForTimeout(100);
  assert.equal(await layout(), saved, 'the saved formation is loaded back');

  await confirmDeployment(page);
  await page.waitForSelector('svg.board .piece.back', { timeout: 60_000 });

  let shot = null;
  const moves = await playUntilOver(page, {
    onMove: async (n) => {
      if (n === 2) shot = await page.screenshot();
    },
  });
  assert.ok(moves > 0, 'we moved at least once');
  assert.ok(shot, 'took a screenshot of the battle');
  const stats = await screenshotStats(page, shot);
  assert.ok(stats.width >= 1000 && stats.colours > 200 && stats.stddev > 20, `battle screenshot looks blank: ${JSON.stringify(stats)}`);
  fs.writeFileSync(path.join(os.tmpdir(), 'siguo-e2e-battle.png'), shot);

  // Game over: full reveal (no hidden piece left) and a result.
  const result = await page.textContent('[data-testid=result]');
  assert.match(result, /获胜|落败|和棋/);
  await assertEnded(page);
  assert.equal(await page.$$eval('svg.board .piece.back', x => x.length), 0, 'everything revealed at the end');
  // the casualties panel names every lost piece of every seat, eliminated ones included
  assert.equal(await page.$$eval('[data-testid=casualties] .chip.back', x => x.length), 0, 'no blank backs at the end');

  // Replay: step forward and back.
  await page.click('[data-testid=replay-link]');
  await page.waitForSelector('[data-testid=replay-board] .piece.face');
  const last = await page.textContent('[data-testid=replay-pos]');
  assert.match(last, /第 0 \/ \d+ 步/);
  const count0 = await page.$$eval('[data-testid=replay-board] .layer-pieces .piece', x => x.length);
  assert.equal(count0, 100, 'the replay starts from four full deployments');
  await page.click('[data-testid=replay-next]');
  await page.waitForSelector('[data-testid=replay-pos]:has-text("第 1 /")');
  await page.click('[data-testid=replay-last]');
  await page.click('[data-testid=replay-prev]');
  const txt = await page.textContent('[data-testid=replay-pos]');
  const [, n, total] = /第 (\d+) \/ (\d+)/.exec(txt);
  assert.equal(Number(n), Number(total) - 1);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the server restarts in the middle of a game: the reconnect banner shows and clears by itself, the game goes on', { timeout: 600_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url);
  await register(page, shared.server.url, uniqueName('断'));
  await page.goto(shared.server.url + '/#/lobby');
  await setPracticeOptions(page, FAST);
  await page.click('[data-testid=practice]');
  await confirmDeployment(page);
  await page.waitForSelector('svg.board .piece.back', { timeout: 60_000 });
  const restarting = shared.server.restart({ downMs: 2500 });
  await page.waitForSelector('#banner:not([hidden]):has-text("连接已断开")', { timeout: 30_000 });
  await restarting;
  await page.waitForSelector('#banner:not([hidden]):has-text("已重新连接")', { timeout: 60_000 });
  await page.waitForSelector('#banner', { state: 'hidden', timeout: 30_000 });
  // A reload finds the game again: from the lobby's list of games in progress, too.
  const url = page.url();
  await page.goto(shared.server.url + '/#/lobby');
  await page.waitForSelector('[data-testid=resume] a');
  await page.click('[data-testid=resume] a');
  await page.waitForSelector('svg.board .piece.back', { timeout: 30_000 });
  assert.equal(page.url(), url);
  await page.reload();
  await page.waitForSelector('svg.board .piece.back', { timeout: 30_000 });
  const moves = await playUntilOver(page);
  assert.ok(moves > 0);
  assert.match(await page.textContent('[data-testid=result]'), /获胜|落败|和棋/);
  await assertEnded(page);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a casual game with two people in two browsers plus two bots', { timeout: 600_000 }, async () => {
  const alice = await newPage(shared.browser, shared.server.url);
  const bob = await newPage(shared.browser, shared.server.url);
  await register(alice, shared.server.url, uniqueName('alice'));
  await bob.click('text=登录');
  await bob.click('[data-testid=guest]');
  await bob.waitForSelector('[data-testid=whoami]');

  await alice.click('[data-testid=create-room]');
  for (const [k, v] of Object.entries(FAST)) await alice.fill(`dialog input[name=${k}]`, String(v));
  await alice.click('[data-testid=create-room-submit]');
  // The creator is seated at once (South) and sees the invite code the lobby asks for.
  await alice.waitForSelector('.seat-card.me[data-seat=S]');
  const code = (await alice.textContent('[data-testid=invite-code]')).trim();
  assert.match(code, /^\w{4,}$/);
  await alice.waitForSelector('[data-testid=bot-E]');
  await alice.click('[data-testid=bot-E]');
  await alice.waitForSelector('[data-testid=bot-W]');
  await alice.click('[data-testid=bot-W]');
  const invite = await alice.inputValue('[data-testid=invite-link]');
  assert.match(invite, /#\/join\//);

  assert.ok(invite.endsWith(code), 'the link carries the code');
  // Bob joins with the code, as the lobby asks.
  await bob.goto(shared.server.url + '/#/lobby');
  await bob.fill('input[aria-label=邀请码]', code);
  await bob.click('form.row button[type=submit]');
  await bob.waitForSelector('[data-testid=sit-N]');
  await bob.click('[data-testid=sit-N]');
  // Chat reaches the other browser.
  await bob.fill('.chat input', '你好');
  await bob.click('.chat button[type=submit]');
  await alice.waitForSelector('[data-testid=chat-log] >> text=你好');

  await bob.waitForSelector('[data-testid=ready]');
  await bob.click('[data-testid=ready]');
  await alice.click('[data-testid=ready]');

  await Promise.all([confirmDeployment(alice), confirmDeployment(bob)]);
  // Bob sits North, so the board is turned for him: his pieces are at the bottom.
  await bob.waitForSelector('svg.board .piece.back', { timeout: 60_000 });
  const bobFaces = await bob.$$eval('svg.board .piece.face', gs => gs.map(g => g.getAttribute('data-station')));
  assert.ok(bobFaces.length > 0 && bobFaces.every(s => s.startsWith('N')), 'bob sees only his own ranks');
  const aliceFaces = await alice.$$eval('svg.board .piece.face', gs => gs.map(g => g.getAttribute('data-station')));
  assert.ok(aliceFaces.every(s => s.startsWith('S')), 'alice sees only her own ranks');

  await Promise.all([playUntilOver(alice), playUntilOver(bob)]);
  const [ra, rb] = [await alice.textContent('[data-testid=result]'), await bob.textContent('[data-testid=result]')];
  assert.match(ra, /获胜|落败|和棋/);
  assert.equal(ra, rb, 'partners see the same result');
  await assertEnded(alice);
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  await alice.context().close();
  await bob.context().close();
});

test('ranked queue: the waiting indicator and cancel; guests are offered to register', { timeout: 600_000 }, async () => {
  const alice = await newPage(shared.browser, shared.server.url);
  await register(alice, shared.server.url, uniqueName('候'));
  await alice.goto(shared.server.url + '/#/lobby');
  await alice.click('[data-testid=queue-ranked]');
  await alice.waitForSelector('[data-testid=queue-status-ranked] .spinner');
  assert.match(await alice.textContent('[data-testid=queue-status-ranked]'), /匹配中/);
  // The waiting state survives a reload.
  await alice.reload();
  await alice.waitForSelector('[data-testid=queue-status-ranked] .spinner');
  // The queue follows us (issue 38 §10): on the leaderboard and the rules pages a small bar says
  // "排位赛 匹配中 0:05", its clock running, and cancels from there.
  for (const path of ['/#/leaderboard/ranked', '/#/rules/four_player']) {
    await alice.goto(shared.server.url + path);
    const bar = await alice.waitForSelector('[data-testid=queue-bar]:visible');
    const first = await bar.textContent();
    assert.match(first, /匹配中 \d+:\d\d/);
    const box = await bar.boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= 900 && box.x >= 0 && box.x + box.width <= 1280, `the bar in view: ${JSON.stringify(box)}`);
    await alice.waitForFunction((t) => document.querySelector('[data-testid=queue-bar]').textContent !== t, first, { timeout: 5000 });
  }
  await alice.click('[data-testid=queue-bar-cancel]');
  await alice.waitForSelector('[data-testid=queue-bar]', { state: 'hidden' });
  await alice.waitForFunction(() => fetch('/api/queue').then(r => r.json()).then(q => q.state === 'idle'), null, { timeout: 5000 });
  await alice.goto(shared.server.url + '/#/lobby');
  await alice.waitForSelector('[data-testid=queue-ranked]:has-text("开始匹配")');
  assert.equal(await alice.$('[data-testid=queue-status-ranked] .spinner'), null, 'the lobby knows the queue was left');

  const guest = await newPage(shared.browser, shared.server.url);
  await guest.click('text=登录');
  await guest.click('[data-testid=guest]');
  await guest.waitForSelector('[data-testid=whoami]');
  // A guest is offered to register for ranked play, not a queue button that refuses them.
  await guest.waitForSelector('[data-testid=ranked-register] >> text=注册后即可参加排位赛');
  assert.equal(await guest.$('[data-testid=queue-ranked]'), null, 'no queue button for a guest');
  assert.deepEqual(alice.errors, []);
  await alice.context().close();
  await guest.context().close();
});

test('ranked dual: two accounts are matched, deploy, one surrenders; the leaderboard and profiles show it', { timeout: 600_000 }, async () => {
  const alice = await newPage(shared.browser, shared.server.url);
  const bob = await newPage(shared.browser, shared.server.url);
  const an = uniqueName('队甲'), bn = uniqueName('队乙');
  await register(alice, shared.server.url, an);
  await register(bob, shared.server.url, bn);
  for (const p of [alice, bob]) p.on('dialog', (d) => d.accept());
  await alice.goto(shared.server.url + '/#/lobby');

  await bob.goto(shared.server.url + '/#/lobby');
  await alice.click('[data-testid=queue-ranked_dual]');
  await alice.waitForSelector('[data-testid=queue-status-ranked_dual] .spinner');
  await bob.click('[data-testid=queue-ranked_dual]');
  // The match is proposed to both: each accepts it before the countdown ends.
  for (const p of [alice, bob]) {
    await p.waitForSelector('[data-testid=match-proposal] [data-testid=accept-match]', { timeout: 60_000 });
    assert.match(await p.textContent('[data-testid=accept-countdown]'), /秒内确认/);
    await p.click('[data-testid=accept-match]');
  }
  // Matched: both are taken to the game's deployment, each commanding both seats of a team.
  for (const p of [alice, bob]) {
    await p.waitForFunction(() => location.hash.startsWith('#/room/'), null, { timeout: 60_000 });
    await p.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
    assert.equal(await p.$$eval('[data-testid=confirm]', b => b.length), 2, 'dual control confirms two seats');
    while (await p.$('[data-testid=confirm]')) {
      await p.click('[data-testid=confirm]');
      await p.waitForTimeout(300);
    }
  }
  await alice.waitForSelector('[data-testid=surrender]', { timeout: 60_000 });
  await alice.click('[data-testid=surrender]');
  await alice.waitForSelector('[data-testid=result]', { timeout: 60_000 });
  await bob.waitForSelector('[data-testid=result]', { timeout: 60_000 });
  assert.match(await alice.textContent('[data-testid=result]'), /落败/);
  assert.match(await bob.textContent('[data-testid=result]'), /获胜/);
  // The reason is told from each side: never "both enemy seats eliminated" above "your team lost".
  assert.match(await alice.textContent('[data-testid=result-reason]'), /我方两家全部出局/);
  assert.match(await bob.textContent('[data-testid=result-reason]'), /对方两家全部出局/);
  await assertEnded(bob);
  // Points change after a ranked game: +3 for the win, 0 for the surrender.
  await bob.waitForSelector('[data-testid=points]:has-text("+3")', { timeout: 30_000 });
  await alice.waitForSelector('[data-testid=points]:has-text("0")', { timeout: 30_000 });

  // The leaderboard: bob first with 3 points; alice finds her own row.
  await alice.goto(shared.server.url + '/#/leaderboard/ranked_dual');
  await alice.waitForSelector('[data-testid=leaderboard]');
  const first = await alice.$$eval('[data-testid=leaderboard] tbody tr:first-child td', tds => tds.map(td => td.textContent));
  // the name with its title (军衔): 3 points is still 工兵
  assert.equal(first[1], bn + ' 工兵');
  assert.equal(first[2], '3');
  await alice.click('[data-testid=jump-me]');
  await alice.waitForSelector(`[data-testid=leaderboard] tr.me:has-text("${an}")`);

  // Bob's profile: the ranked_dual line and the game with its replay.
  await bob.goto(`${shared.server.url}/#/profile/${encodeURIComponent(bn)}`);
  await bob.waitForSelector('[data-testid=ladder-ranked_dual]');
  assert.match(await bob.textContent('[data-testid=ladder-ranked_dual]'), /3/);
  // the game's line names the opponent
  assert.ok((await bob.textContent('[data-testid=games] [data-testid=opponents]')).includes(an));
  await bob.click('[data-testid=games] a.btn');
  await bob.waitForSelector('[data-testid=replay-board] .piece.face');
  assert.match(await bob.textContent('[data-testid=replay-result]'), /你方获胜.*对方两家全部出局/);
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  await alice.context().close();
  await bob.context().close();
});

test('the leaderboards and a profile display', { timeout: 600_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url);
  const name = uniqueName('榜');
  await register(page, shared.server.url, name);
  for (const ladder of ['ranked', 'ranked_dual']) {
    await page.goto(`${shared.server.url}/#/leaderboard/${ladder}`);
    await page.waitForSelector('[data-testid=leaderboard], .empty:has-text("暂无排名")');
    assert.ok(!(await page.$('.error-text')), 'no error on the leaderboard');
  }
  await page.goto(`${shared.server.url}/#/profile/${encodeURIComponent(name)}`);
  await page.waitForSelector(`[data-testid=profile-name]:has-text("${name}")`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// Hidden Front's rated ladder: two accounts pick 两人军棋 in the lobby, queue for the rated game
// (快速匹配), accept the proposal, deploy and play; one surrenders. The result box shows each
// player's new rating (provisional: with a "?", no title yet), the profile shows the rating, the
// per-game statistics and the rating-history chart, and the leaderboard has a tab per ladder. The
// clocks are Hidden Front's standard ones (a rated game is never shortened).
test('Hidden Front rated: queue, accept, play, the new rating and the chart', { timeout: 600_000 }, async () => {
  const alice = await newPage(shared.browser, shared.server.url);
  const bob = await newPage(shared.browser, shared.server.url);
  const an = uniqueName('甲'), bn = uniqueName('乙');
  await register(alice, shared.server.url, an);
  await register(bob, shared.server.url, bn);
  for (const p of [alice, bob]) {
    p.on('dialog', (d) => d.accept());
    await p.goto(shared.server.url + '/#/lobby');
    await p.click('[data-testid=game-hidden_front]');
    // the rated queue shows with its game, the four-player ones do not
    await p.waitForSelector('[data-testid=queue-hf_ranked]:visible');
    assert.equal(await p.isVisible('[data-testid=queue-ranked]'), false);
  }
  await alice.click('[data-testid=queue-hf_ranked]');
  await alice.waitForSelector('[data-testid=queue-status-hf_ranked] .spinner');
  // Alice reads the leaderboard while she waits: the match finds her there (issue 38 §10)
  await alice.goto(shared.server.url + '/#/leaderboard/hf_ranked');
  await alice.waitForSelector('[data-testid=queue-bar]:visible');
  await bob.click('[data-testid=queue-hf_ranked]');
  for (const p of [alice, bob]) {
    await p.waitForSelector('[data-testid=match-proposal] [data-testid=accept-match]', { timeout: 60_000 });
    await p.click('[data-testid=accept-match]');
  }
  for (const p of [alice, bob]) {
    await p.waitForFunction(() => location.hash.startsWith('#/room/'), null, { timeout: 60_000 });
    await p.waitForSelector('svg.board[data-variant=hidden_front]', { timeout: 60_000 });
    // the room is named by its own ladder (两人军棋排位), not the four-player dual ladder's 双控排位
    const tag = await p.textContent('section.panel h2 span.tag:not(.game-tag)');
    assert.equal(tag, '两人军棋排位');
    await p.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
    await p.click('[data-testid=confirm]');
  }
  // the battle: whoever does not move first gives up
  await alice.waitForSelector('[data-testid=surrender]', { timeout: 60_000 });
  await alice.click('[data-testid=surrender]');
  for (const p of [alice, bob]) await p.waitForSelector('[data-testid=result]', { timeout: 60_000 });
  const g = await assertEnded(bob, { expect: { state: 'won', winner: await seatOf(bob, bn), reason: 'surrender' } });
  assert.equal(g.kind, 'hf_ranked');
  // a newcomer's win against a newcomer: 1500 → 1662 (RD 290: provisional, no title yet), shown
  // with the change
  await bob.waitForSelector('[data-testid=new-rating]:has-text("1662? (+162)")', { timeout: 30_000 });
  await alice.waitForSelector('[data-testid=new-rating]:has-text("1338? (\u2212162)")', { timeout: 30_000 });
  assert.equal(await bob.$('[data-testid=new-rating] [data-testid=title]'), null, 'no title while provisional');

  // bob's profile: the rating, the Hidden Front game counted, the chart with one point
  await bob.goto(`${shared.server.url}/#/profile/${encodeURIComponent(bn)}`);
  await bob.waitForSelector('[data-testid=ladder-hf_ranked] [data-testid=rating]:has-text("1662?")');
  await bob.waitForSelector('[data-testid=rating-chart] circle');
  assert.equal(await bob.$$eval('[data-testid=rating-chart] circle', c => c.length), 1);
  assert.match(await bob.textContent('[data-testid=per-game]'), /两人军棋\s*1\s*1\s*0\s*0/);
  // the leaderboard: a tab per ladder; nobody on Hidden Front's yet (10 games and a settled RD)
  await bob.goto(`${shared.server.url}/#/leaderboard/hf_ranked`);
  await bob.waitForSelector('[data-testid=tab-hf_ranked].active');
  assert.equal(await bob.$$eval('.tabs a', as => as.length), 3);
  await bob.waitForSelector('.empty:has-text("暂无排名")');
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  await alice.context().close();
  await bob.context().close();
});

/** The seat `name` plays in the game the page's result box links to (`S` or `N`). */
async function seatOf(page, name) {
  const href = await page.getAttribute('[data-testid=replay-link]', 'href');
  const id = /#\/replay\/(\d+)/.exec(href || '')[1];
  const g = await page.evaluate(async (id) => (await fetch('/api/games/' + id)).json(), id);
  return g.players.find(p => p.name === name).seat;
}
