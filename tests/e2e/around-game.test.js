// Issue 28 (the client's parts), in the browser as a person sees it: the lobby for a guest (ranked
// is something to register for), the rules pages, a new room's seats on the first screen; two
// people at Hidden Front (quick chat, the chat's heading, a draw offer as a prompt over the board
// that survives a reload, the log speaking of "你", the result's reason named once, the board
// filling the screen, a guest's name before its online dot); a phone at 390 × 844 (deployment,
// battle and replay on the first screen, move numbers of the board = the log's, the mark menu,
// English labels inside their pieces, a refused swap not covering a name plate, the zoomed board).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedServer, newPage, register, uniqueName, assertEnded } from './harness.js';
import { confirmDeployment, stationsWithLabel, clickStation, labelsPastTheirPieces } from './play.js';

const shared = sharedServer();

/** The box of the first element matching `sel` in viewport coordinates (null if none or not drawn). */
const box = (page, sel) => page.$eval(sel, (e) => {
  const r = e.getBoundingClientRect();
  return r.width || r.height ? { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height } : null;
}).catch(() => null);

/** `sel` is drawn, and wholly inside the viewport as it stands (no scrolling). */
async function assertOnScreen(page, sel, what = sel) {
  const vp = page.viewportSize();
  const b = await box(page, sel);
  assert.ok(b, `${what} is drawn`);
  assert.ok(b.top >= 0 && b.left >= -1 && b.bottom <= vp.height + 1 && b.right <= vp.width + 1,
    `${what} is on the first screen (${vp.width} × ${vp.height}): ${JSON.stringify(b)}`);
}

async function loginAsGuest(page) {
  await page.click('text=登录');
  await page.click('[data-testid=guest]');
  await page.waitForSelector('[data-testid=whoami]');
}

/** Every name on the board's plates ends before its seat's online dot (a guest's long name too). */
async function assertNamesBeforeDots(page) {
  const clash = await page.$$eval('svg.board .plate', (plates) => plates.map((p) => {
    const dot = p.querySelector('.plate-presence');
    const name = p.querySelector('.plate-name');
    if (!dot || !name || !name.textContent) return null;
    const d = dot.getBoundingClientRect(), n = name.getBoundingClientRect();
    return n.right > d.left - 2 ? `${name.textContent} ends at ${n.right}, its dot starts at ${d.left}` : null;
  }).filter(Boolean));
  assert.deepEqual(clash, [], 'a name runs into its online dot');
}

/** Count the occurrences of `text` in the text of `sel`. */
const occurrences = async (page, sel, text) => (await page.textContent(sel)).split(text).length - 1;

test('the lobby for a guest: ranked is something to register for; the rules pages of both games; a new room\'s seats on the first screen at 1280 × 800', { timeout: 300_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url, { width: 1280, height: 800 });
  await loginAsGuest(page);
  await page.goto(shared.server.url + '/#/lobby');
  // Ranked: an invitation to register, no queue button that would refuse a guest.
  await page.waitForSelector('[data-testid=ranked-register]');
  assert.match(await page.textContent('[data-testid=ranked-card-ranked]'), /注册后即可参加排位赛/);
  assert.equal(await page.$('[data-testid=queue-ranked]'), null);
  assert.equal(await page.getAttribute('[data-testid=ranked-register] a.btn', 'href'), '#/register');

  // The practice options: every label whole, inside its card (扛旗规则 was cut).
  await page.click('details summary');
  const cut = await page.$$eval('details label.field > span', (spans) => spans.filter(s => s.offsetParent).filter((s) => {
    const card = s.closest('.play-card').getBoundingClientRect();
    const r = s.getBoundingClientRect();
    return s.scrollWidth > s.clientWidth + 1 || r.left < card.left || r.right > card.right;
  }).map(s => s.textContent));
  assert.deepEqual(cut, [], 'no option label is cut');
  // and every choice shows its whole value (任意棋子可扛旗 was cut to 任意棋子可扛)
  const cutValues = await page.$$eval('details select', (sels) => sels.filter(s => s.offsetParent).filter((s) => {
    const probe = document.createElement('span');
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;font:' + getComputedStyle(s).font;
    probe.textContent = s.options[s.selectedIndex].textContent;
    document.body.append(probe);
    const w = probe.getBoundingClientRect().width;
    probe.remove();
    return w + 28 > s.clientWidth; // the padding and the arrow take about 28 px
  }).map(s => s.name));
  assert.deepEqual(cutValues, [], 'choices cut');
  assert.ok((await page.textContent('details')).includes('扛旗规则'));

  // The rules of the game chosen, from the lobby: every part, in Chinese, then English.
  await page.click('[data-testid=rules-link]');
  await page.waitForSelector('[data-testid=rules][data-variant=four_player]');
  for (const part of ['board', 'pieces', 'deploy', 'moving', 'combat', 'endings', 'clocks', 'options']) {
    assert.ok(await page.isVisible(`[data-testid=rules-${part}] h2`), `the rules tell of ${part}`);
  }
  const four = await page.textContent('[data-testid=rules]');
  for (const word of ['129', '司令', '工兵', '炸弹', '行营', '大本营', '弯道', '300', '明暗模式', '扛旗规则']) assert.ok(four.includes(word), `the four-player rules name ${word}`);
  await page.click('[data-testid=rules-tab-hidden_front]');
  await page.waitForSelector('[data-testid=rules][data-variant=hidden_front]');
  const hf = await page.textContent('[data-testid=rules]');
  for (const word of ['5 列 × 12 行', '山界', '第三次超时', '100 步', '地雷同归于尽']) assert.ok(hf.includes(word), `the Hidden Front rules name ${word}`);
  if (!await page.isVisible('.lang-btn')) await page.click('[data-testid=menu-btn]'); // a phone: in the ☰ menu
  await page.click('.lang-btn');
  await page.waitForSelector('[data-testid=rules-board] h2:has-text("The board")');
  assert.match(await page.textContent('[data-testid=rules]'), /mountains/);
  if (!await page.isVisible('.lang-btn')) await page.click('[data-testid=menu-btn]'); // a phone: in the ☰ menu
  await page.click('.lang-btn');
  await page.waitForSelector('[data-testid=rules-board] h2:has-text("棋盘")');

  // A new room: the creator's seats with 坐下 / 加电脑 on the first screen, also after a reload;
  // the room links its game's rules.
  await page.goto(shared.server.url + '/#/lobby');
  await page.click('[data-testid=create-room]');
  await page.click('[data-testid=create-room-submit]');
  await page.waitForSelector('.seat-card.me[data-seat=S]');
  for (let i = 0; i < 2; i++) {
    await page.waitForSelector('[data-testid=bot-E]');
    for (const sel of ['[data-testid=sit-N]', '[data-testid=bot-N]', '[data-testid=sit-E]', '[data-testid=bot-W]']) await assertOnScreen(page, sel);
    if (i === 0) await page.reload();
  }
  assert.equal(await page.getAttribute('[data-testid=room-rules]', 'href'), '#/rules/four_player');
  await assertNamesBeforeDots(page);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('Hidden Front, two people: quick chat, a draw offer as a prompt over the board (after a reload too), the log speaks of "你", the reason named once; the board fills the screen', { timeout: 300_000 }, async () => {
  const alice = await newPage(shared.browser, shared.server.url, { width: 1280, height: 800 });
  const bob = await newPage(shared.browser, shared.server.url, { width: 1280, height: 800 });
  await register(alice, shared.server.url, uniqueName('南'));
  await loginAsGuest(bob);
  const bobName = (await bob.textContent('[data-testid=whoami]')).replace(/\s*\(.*$/, '').trim();

  await alice.click('[data-testid=create-room]');
  await alice.selectOption('[data-testid=room-variant]', 'hidden_front');
  await alice.click('[data-testid=create-room-submit]');
  await alice.waitForSelector('.seat-card.me[data-seat=S]');
  const code = (await alice.textContent('[data-testid=invite-code]')).trim();
  await bob.goto(shared.server.url + '/#/join/' + code);
  await bob.click('[data-testid=sit-N]');

  // Quick chat: one tap, an ordinary chat line the other side reads; the chat has its heading.
  await bob.waitForSelector('[data-testid=chat] h2:has-text("聊天")');
  await bob.click('[data-testid=quick-chat] button[data-phrase="你好"]');
  await alice.waitForSelector(`[data-testid=chat-log] .msg:has-text("${bobName}:你好")`);
  assert.ok(await alice.isVisible('[data-testid=chat] h2'));

  await bob.click('[data-testid=ready]');
  await alice.click('[data-testid=ready]');
  await Promise.all([confirmDeployment(alice), confirmDeployment(bob)]);
  await alice.waitForSelector('[data-testid=offer-draw]', { timeout: 60_000 });

  // The tall board's column is as wide as the board: no empty bands beside it.
  const layout = await alice.evaluate(() => {
    const r = (sel) => document.querySelector(sel).getBoundingClientRect();
    return { main: r('main'), board: r('svg.board'), side: r('.side') };
  });
  assert.ok(layout.board.height >= 0.7 * 800, `board height ${layout.board.height}`);
  assert.ok(layout.board.left - layout.main.left <= 24, `empty band left of the board: ${layout.board.left - layout.main.left}`);
  assert.ok(layout.side.left - layout.board.right <= 24, `empty band right of the board: ${layout.side.left - layout.board.right}`);

  // Names on the plates end before their online dots (the guest's name too).
  for (const page of [alice, bob]) await assertNamesBeforeDots(page);

  // Alice (South) offers a draw: Bob is asked over the board; Alice reads "你提出和棋".
  await alice.click('[data-testid=offer-draw]');
  await bob.waitForSelector('[data-testid=draw-prompt]:not([hidden])');
  assert.equal((await bob.textContent('[data-testid=draw-prompt-text]')).trim(), '南提出和棋');
  const prompt = await box(bob, '[data-testid=draw-prompt]');
  const board = await box(bob, 'svg.board');
  assert.ok(prompt.top >= board.top && prompt.bottom <= board.bottom && prompt.left >= board.left && prompt.right <= board.right, 'the prompt is over the board');
  await assertOnScreen(bob, '[data-testid=draw-accept]');
  await alice.waitForSelector('[data-testid=log] .entry:has-text("你提出和棋")');
  assert.equal(await alice.isVisible('[data-testid=draw-prompt]'), false, 'no prompt for the one who offered');
  assert.match(await alice.textContent('[data-testid=draw-line]'), /^你提出和棋$/);
  await bob.waitForSelector('[data-testid=log] .entry:has-text("南提出和棋")');
  assert.doesNotMatch(await alice.textContent('[data-testid=log]'), /南提出和棋/, 'our own seat is "you" everywhere');
  // The prompt is there again after a reload, and 同意 ends the game in a draw.
  await bob.reload();
  await bob.waitForSelector('[data-testid=draw-prompt]:not([hidden])', { timeout: 30_000 });
  await bob.click('[data-testid=draw-accept]');
  for (const page of [alice, bob]) {
    await page.waitForSelector('[data-testid=result]', { timeout: 30_000 });
    assert.equal(await page.isVisible('[data-testid=draw-prompt]'), false);
    assert.match(await page.textContent('[data-testid=result]'), /和棋/);
    // The reason is named once in the result box and nowhere else in its panel; the log agrees.
    assert.equal(await occurrences(page, '[data-testid=result]', '协议和棋'), 1);
    assert.equal(await occurrences(page, '.side > .panel.stack', '协议和棋'), 1);
    await page.waitForSelector('[data-testid=log] .entry:has-text("对局结束 · 和棋 (协议和棋)")');
    await assertEnded(page, { expect: { state: 'draw', winner: null, reason: 'agreement' } });
  }
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  await alice.context().close();
  await bob.context().close();
});

test('a phone (390 × 844), Hidden Front\'s tall board: deployment, battle and replay on the first screen; the board\'s move numbers are the log\'s; the mark menu, English labels and a refused swap fit', { timeout: 600_000 }, async () => {
  const page = await newPage(shared.browser, shared.server.url, { width: 390, height: 844 });
  page.on('dialog', (d) => d.accept());
  await register(page, shared.server.url, uniqueName('机'));
  await page.goto(shared.server.url + '/#/lobby');
  await page.click('[data-testid=game-hidden_front]');
  await page.click('details summary');
  await page.fill('details input[name=deploy_seconds]', '120');
  await page.click('[data-testid=practice]');

  // Deployment: the countdown and 确认布阵 on the first screen, after a reload too.
  for (let i = 0; i < 2; i++) {
    await page.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
    await page.waitForSelector('[data-testid=status]:has-text("布阵剩余")');
    for (const sel of ['[data-testid=status]', '[data-testid=confirm]', 'svg.board']) await assertOnScreen(page, sel);
    if (i === 0) await page.reload();
  }
  // A refused swap: its reason next to 确认布阵, covering no name plate.
  const flag = (await stationsWithLabel(page, '军旗'))[0];
  const front = (await page.$$eval('svg.board .piece.face', gs => gs.map(g => g.getAttribute('data-station')))).find(s => /^[A-E]7$/.test(s));
  await clickStation(page, flag);
  await clickStation(page, front);
  await page.waitForSelector('[data-testid=swap-error]');
  await assertOnScreen(page, '[data-testid=swap-error]');
  const covered = await page.$$eval('svg.board .plate', (plates) => plates.filter((p) => {
    const r = p.getBoundingClientRect();
    return [...document.querySelectorAll('.toast.show, .overlay-msg:not([hidden])')].some((o) => {
      const b = o.getBoundingClientRect();
      return b.width > 0 && b.left < r.right && b.right > r.left && b.top < r.bottom && b.bottom > r.top;
    });
  }).map(p => p.getAttribute('data-plate')));
  assert.deepEqual(covered, [], 'a name plate is covered');

  // The tall board needs no zoom on a phone: its pieces are big enough to tap as they are.
  assert.equal(await page.isVisible('[data-testid=zoom]'), false, 'no zoom for the tall board');
  const pw = await page.$eval('svg.board .piece-body', r => r.getBoundingClientRect().width);
  assert.ok(pw >= 32, `a piece is ${pw} px wide`);

  await confirmDeployment(page);
  // Battle: the board, whose turn it is, 提和 / 投降 and the last moves on the first screen.
  await page.waitForSelector('svg.board .piece.selectable', { timeout: 60_000 });
  const from = await page.$eval('svg.board .layer-pieces .piece.selectable', g => g.getAttribute('data-station'));
  await clickStation(page, from);
  const to = await page.waitForSelector('svg.board .layer-targets .target').then(t => t.getAttribute('data-station'));
  await clickStation(page, to);
  await page.waitForSelector('svg.board .piece.selectable', { timeout: 60_000 });
  await page.evaluate(() => scrollTo(0, 0));
  for (const sel of ['svg.board', '[data-testid=status]', '[data-testid=offer-draw]', '[data-testid=surrender]', '[data-testid=log] .entry']) await assertOnScreen(page, sel);
  // The numbers on the board are those of the log (and of the step counter).
  const numbers = await page.$$eval('svg.board .move-no', gs => gs.map(g => Number(g.getAttribute('data-move-no'))));
  const logNos = await page.$$eval('[data-testid=log] .entry[data-no]:not([data-no=""])', es => es.map(e => Number(e.dataset.no)));
  assert.equal(numbers.length, 2, 'our move and the one since');
  assert.deepEqual(numbers, logNos.slice(0, 2).reverse(), `board ${numbers}, log ${logNos}`);
  const step = Number(/第 (\d+) 步/.exec(await page.textContent('[data-testid=substatus]'))[1]);
  assert.ok(step >= Math.max(...numbers) && Math.max(...numbers) >= 2, `step ${step}, numbers ${numbers}`);

  // The mark menu: every rank on one line (司令 was wrapped into 司/令).
  const enemy = await page.$eval('svg.board .layer-pieces .piece.back[data-station$="1"]', g => g.getAttribute('data-station'));
  await page.click(`svg.board .layer-pieces [data-station="${enemy}"]`, { button: 'right', force: true });
  await page.waitForSelector('[data-testid=mark-menu]');
  await assertOnScreen(page, '[data-testid=mark-menu]');
  const wrapped = await page.$$eval('[data-testid=mark-menu] button', bs => bs.filter((b) => {
    const r = document.createRange();
    r.selectNodeContents(b);
    return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1;
  }).map(b => b.textContent));
  assert.deepEqual(wrapped, [], 'labels wrapped in the mark menu');
  await page.keyboard.press('Escape');

  // English: every rank inside its piece ("Bomb" ran past it).
  if (!await page.isVisible('.lang-btn')) await page.click('[data-testid=menu-btn]'); // a phone: in the ☰ menu
  await page.click('.lang-btn');
  await page.waitForSelector('[data-testid=substatus]:has-text("Step")');
  await page.waitForSelector('svg.board .piece.face .piece-text.latin');
  const outside = await labelsPastTheirPieces(page);
  assert.deepEqual(outside, [], 'labels past their pieces');
  if (!await page.isVisible('.lang-btn')) await page.click('[data-testid=menu-btn]'); // a phone: in the ☰ menu
  await page.click('.lang-btn');
  await page.waitForSelector('[data-testid=substatus]:has-text("无交战")');

  // Surrender: the reason is named once, and agrees with the record.
  await page.click('[data-testid=surrender]');
  await page.waitForSelector('[data-testid=result]', { timeout: 120_000 });
  const reason = (await page.textContent('[data-testid=result-reason]')).trim();
  assert.ok(reason, 'the result names its reason');
  assert.equal(await occurrences(page, '.side > .panel.stack', reason), 1, `"${reason}" named once`);
  assert.equal(reason, '我方投降');
  await assertEnded(page, { expect: { state: 'won', winner: 'N', reason: 'surrender' } });

  // The replay: the board and the step buttons on one screen; stepping never scrolls the board away.
  await page.click('[data-testid=replay-link]');
  await page.waitForSelector('[data-testid=replay-board] .piece.face');
  for (const sel of ['[data-testid=replay-board] svg', '[data-testid=replay-next]', '[data-testid=replay-prev]']) await assertOnScreen(page, sel);
  const before = await box(page, '[data-testid=replay-board] svg');
  for (let i = 1; i <= 3; i++) {
    await page.click('[data-testid=replay-next]');
    await page.waitForSelector(`[data-testid=replay-pos]:has-text("第 ${i} /")`);
  }
  assert.deepEqual(await box(page, '[data-testid=replay-board] svg'), before, 'the board stays where it was');
  await assertOnScreen(page, '[data-testid=replay-next]');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
