// Helpers that play through the web page the way a person does: clicks on the SVG board.

/** Wait until the deployment phase shows our pieces, then confirm. */
export async function confirmDeployment(page) {
  await page.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
  await page.click('[data-testid=confirm]');
  await page.waitForSelector('[data-testid=confirm]', { state: 'detached', timeout: 30_000 });
}

/** Station names of our own pieces with a given rank label (e.g. '军旗'). */
export async function stationsWithLabel(page, label) {
  return page.$$eval('svg.board .piece.face', (gs, label) => gs
    .filter(g => (g.querySelector('.piece-text')?.textContent || '').trim() === label)
    .map(g => g.getAttribute('data-station')), label);
}

/** The rank label drawn on the piece at a station ('' for a back or an empty station). */
export async function labelAt(page, station) {
  return page.$eval('svg.board', (svg, st) => svg.querySelector(`.layer-pieces [data-station="${st}"] .piece-text`)?.textContent || '', station);
}

export async function clickStation(page, station, timeout = 30_000) {
  await page.click(`svg.board .layer-pieces [data-station="${station}"], svg.board .layer-targets [data-station="${station}"]`, { force: true, timeout });
}

/**
 * Play (choose the first legal piece and its first destination) whenever it is our turn, until
 * the result box shows. Returns the number of moves made.
 */
export async function playUntilOver(page, { maxMoves = 400, onMove } = {}) {
  let moves = 0;
  for (;;) {
    if (await page.$('[data-testid=result]')) return moves;
    // The board redraws whenever an update arrives: a vanished element just means "look again".
    const from = await page.$eval('svg.board .layer-pieces .piece.selectable', g => g.getAttribute('data-station')).catch(() => null);
    if (from && moves < maxMoves && await clickStation(page, from, 2000).then(() => true, () => false)) {
      const to = await page.waitForSelector('svg.board .layer-targets .target', { timeout: 3000 })
        .then(t => t.getAttribute('data-station'), () => null);
      if (to && await clickStation(page, to, 2000).then(() => true, () => false)) {
        moves += 1;
        if (onMove) await onMove(moves, from, to);
        // wait for the turn to pass (selectable pieces disappear) or the game to end
        await page.waitForFunction(() => !document.querySelector('svg.board .piece.selectable.selected'), null, { timeout: 15_000 }).catch(() => {});
      }
    }
    await page.waitForTimeout(150);
  }
}

/**
 * Play as a person who takes their time: on each of our turns wait `thinkMs`, then make a move;
 * stop after `ms` or at the end of the game. Returns the number of moves made.
 */
export async function playSlowly(page, { ms, thinkMs }) {
  const until = Date.now() + ms;
  let moves = 0;
  while (Date.now() < until) {
    if (await page.$('[data-testid=result]')) return moves;
    const mine = await page.waitForSelector('svg.board .layer-pieces .piece.selectable', { timeout: 2000 }).then(() => true, () => false);
    if (!mine) continue;
    await page.waitForTimeout(thinkMs);
    const from = await page.$eval('svg.board .layer-pieces .piece.selectable', g => g.getAttribute('data-station')).catch(() => null);
    if (!from || !await clickStation(page, from, 2000).then(() => true, () => false)) continue;
    const to = await page.waitForSelector('svg.board .layer-targets .target', { timeout: 3000 })
      .then(t => t.getAttribute('data-station'), () => null);
    if (to && await clickStation(page, to, 2000).then(() => true, () => false)) {
      moves += 1;
      await page.waitForFunction(() => !document.querySelector('svg.board .piece.selectable.selected'), null, { timeout: 15_000 }).catch(() => {});
    }
  }
  return moves;
}

/** Check a screenshot is not blank: decode it in the page and measure colour variety. */
export async function screenshotStats(page, png) {
  const b64 = png.toString('base64');
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let sum = 0, sum2 = 0, n = 0;
    for (let i = 0; i < d.length; i += 4 * 7) {
      const l = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
      sum += l; sum2 += l * l; n += 1;
      colours.add((d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | (d[i + 2] >> 3));
    }
    const mean = sum / n;
    return { width: img.width, height: img.height, colours: colours.size, stddev: Math.sqrt(sum2 / n - mean * mean) };
  }, b64);
}

/** The rank labels drawn wider than their own pieces (none is expected). */
export async function labelsPastTheirPieces(page) {
  return page.$$eval('svg.board .piece.face', gs => gs.map((g) => {
    const body = g.querySelector('.piece-body').getBoundingClientRect(), text = g.querySelector('.piece-text').getBoundingClientRect();
    return text.width > body.width + 0.5 ? g.querySelector('.piece-text').textContent : null;
  }).filter(Boolean));
}

/**
 * From the lobby: create a public four-player room, sit South (the creator's seat), let the
 * computer take the other three seats, get ready and confirm the deployment (`moveSeconds`: the
 * room's move clock, when not the default). Returns the room id.
 */
export async function botRoom(page, url, { moveSeconds } = {}) {
  await page.goto(url + '/#/lobby');
  await page.click('[data-testid=create-room]');
  if (moveSeconds) await page.fill('dialog[open] input[name=move_seconds]', String(moveSeconds));
  await page.click('[data-testid=create-room-submit]');
  await page.waitForSelector('.seat-card.me[data-seat=S]');
  const room = page.url().split('#/room/')[1];
  for (const seat of ['N', 'E', 'W']) {
    await page.waitForSelector(`[data-testid=bot-${seat}]`);
    await page.click(`[data-testid=bot-${seat}]`);
  }
  await page.waitForSelector('[data-testid=ready]');
  await page.click('[data-testid=ready]');
  await page.waitForSelector('[data-testid=confirm]', { timeout: 60_000 });
  await confirmDeployment(page);
  return room;
}

/** The game log as it reads: each line's number (or '') and text, oldest first. */
export async function logLines(page) {
  return page.$$eval('[data-testid=log] .entry', (rows) => rows.map((r) => `${r.getAttribute('data-no')}|${r.textContent.trim()}`));
}
