// Test harness: builds (if needed) and starts the real `siguo serve` on a free port with a fresh
// SQLite database, and launches Debian's chromium through playwright-core.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.SIGUO_TEST_CHROMIUM || '/usr/bin/chromium';

let builtCopy = null;

export function binaryPath() {
  if (process.env.SIGUO_TEST_BINARY) return process.env.SIGUO_TEST_BINARY;
  if (builtCopy) return builtCopy;
  const target = process.env.CARGO_TARGET_DIR || path.join(REPO, 'target');
  return path.join(target, 'debug', 'siguo');
}

/**
 * Build the server binary (cargo is a no-op when it is up to date) and keep a private copy, so
 * that another build into a shared CARGO_TARGET_DIR cannot swap it under a running test.
 */
export function buildServer() {
  if (process.env.SIGUO_TEST_BINARY || builtCopy) return;
  const r = spawnSync('cargo', ['build', '--bin', 'siguo'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('cargo build failed');
  const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'siguo-e2e-bin-')), 'siguo');
  fs.copyFileSync(binaryPath(), copy);
  fs.chmodSync(copy, 0o755);
  builtCopy = copy;
  process.on('exit', () => fs.rmSync(path.dirname(copy), { recursive: true, force: true }));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Start `siguo serve`; returns {url, stop()} */
export async function startServer(extraEnv = {}) {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siguo-e2e-'));
  const env = {
    ...process.env,
    SIGUO_SERVER_LISTEN: `127.0.0.1:${port}`,
    SIGUO_DATABASE_URL: `sqlite://${path.join(dir, 'siguo.db')}`,
    SIGUO_SERVER_STATIC_DIR: path.join(REPO, 'static'),
    SIGUO_LOG_LEVEL: process.env.SIGUO_TEST_LOG || 'warn',
    // Every browser of the test comes from 127.0.0.1: let them meet in ranked games.
    SIGUO_LADDER_SAME_IP_RULE: 'false',
    // Bots answer at once (games play fast); the pacing test sets its own delay.
    SIGUO_LIVE_BOT_MOVE_DELAY_MS: '0',
    ...extraEnv,
  };
  for (const k of Object.keys(env)) if (k.startsWith('SIGUO_TEST_')) delete env[k];
  const logPath = path.join(dir, 'server.log');
  const log = fs.openSync(logPath, 'a');
  const url = `http://127.0.0.1:${port}`;
  let child = null, exited = null;

  async function spawnAndWait() {
    exited = null;
    child = spawn(binaryPath(), ['serve'], { cwd: REPO, env, stdio: ['ignore', log, log] });
    const me = child;
    me.on('exit', (code) => { if (child === me) exited = code ?? -1; });
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (exited !== null) throw new Error(`server exited with ${exited}:\n${fs.readFileSync(logPath, 'utf8')}`);
      try {
        const r = await fetch(url + '/healthz');
        if (r.ok) return;
      } catch { /* not yet */ }
      if (Date.now() > deadline) throw new Error('server did not start:\n' + fs.readFileSync(logPath, 'utf8'));
      await new Promise(r => setTimeout(r, 100));
    }
  }

  async function kill() {
    if (!child || exited !== null) return;
    const c = child;
    await new Promise((resolve) => {
      const t = setTimeout(() => { c.kill('SIGKILL'); }, 10_000);
      c.on('exit', () => { clearTimeout(t); resolve(); });
      c.kill('SIGTERM');
    });
  }

  await spawnAndWait();
  return {
    url,
    logPath,
    /** Stop the server process and start it again on the same port and database. */
    async restart({ downMs = 0 } = {}) {
      await kill();
      if (downMs) await new Promise(r => setTimeout(r, downMs));
      await spawnAndWait();
    },
    async stop() {
      await kill();
      fs.closeSync(log);
      if (!process.env.SIGUO_TEST_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // playwright-core gives every launch its own fresh temporary --user-data-dir.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A fresh browser context + page at `url`, in Chinese, with console errors collected. */
export async function newPage(browser, url, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, locale: 'zh-CN' });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(url + '/');
  return page;
}

let counter = 0;
export function uniqueName(prefix) {
  counter += 1;
  return `${prefix}${(Date.now() % 100000).toString(36)}${counter}`;
}

export async function register(page, url, name, password = 'Tr1cky-Pass-' + name) {
  await page.goto(url + '/#/register');
  await page.fill('input[name=username]', name);
  await page.fill('input[name=password]', password);
  await page.fill('input[name=password2]', password);
  await page.click('button[type=submit]');
  await page.waitForSelector(`[data-testid=whoami]:has-text("${name}")`);
  return password;
}

/** The endings the rules allow, per game and state (rules.md §7, hidden-front.md §5). */
const RULE_ENDINGS = {
  four_player: { won: ['elimination'], draw: ['step_limit', 'agreement'] },
  hidden_front: { won: ['flag_captured', 'no_legal_move', 'timeouts'], draw: ['no_combat', 'agreement'] },
};

/**
 * The game the page shows has ended, and how: read through the page (its cookies) from the
 * record of the game its result box links to. With `expect` the result must be exactly that
 * (`{state, winner, reason}`); without it, an ending the rules allow for a game played at
 * random (never a surrender or an escape the test did not make). No seat escaped but `escaped`;
 * the result box never says a side was away unless one escaped. Returns the record.
 */
export async function assertEnded(page, { expect = null, escaped = [] } = {}) {
  const href = await page.getAttribute('[data-testid=replay-link]', 'href');
  const id = /#\/replay\/(\d+)/.exec(href || '')?.[1];
  if (!id) throw new Error('no replay link in the result box: ' + href);
  const g = await page.evaluate(async (id) => (await fetch('/api/games/' + id)).json(), id);
  if (g.state !== 'finished') throw new Error(`game ${id} is not finished: ${JSON.stringify(g)}`);
  if (expect) {
    if (JSON.stringify(sorted(g.result)) !== JSON.stringify(sorted(expect))) {
      throw new Error(`game ${id} ended ${JSON.stringify(g.result)}, expected ${JSON.stringify(expect)}`);
    }
  } else {
    const allowed = (RULE_ENDINGS[g.variant || 'four_player'] || {})[g.result.state] || [];
    if (!allowed.includes(g.result.reason)) throw new Error(`game ${id} ended by ${JSON.stringify(g.result)}`);
  }
  const away = g.players.filter(p => p.escaped).map(p => p.seat).sort();
  if (away.join() !== [...escaped].sort().join()) throw new Error(`seats escaped in game ${id}: ${away.join() || 'none'}`);
  const text = await page.textContent('[data-testid=result]');
  if (!escaped.length && /断线超时/.test(text)) throw new Error('the result box tells of an absence: ' + text);
  return g;
}

const sorted = (o) => Object.fromEntries(Object.entries(o || {}).sort(([a], [b]) => a.localeCompare(b)));

/**
 * The server and the browser a test file shares: started before its tests, stopped after them.
 * Returns an object whose `server` and `browser` are set once started.
 */
export function sharedServer(extraEnv = {}) {
  const shared = { server: null, browser: null };
  before(async () => {
    buildServer();
    shared.server = await startServer(extraEnv);
    shared.browser = await launchBrowser();
  });
  after(async () => {
    if (shared.browser) await shared.browser.close();
    if (shared.server) await shared.server.stop();
  });
  return shared;
}
