// App shell: session, header, hash router.
import { t, getLang, setLang } from './i18n.js';
import { h, clear } from './dom.js';
import { session } from './session.js';
import { keepAlive } from './api.js';
import { queue } from './queue.js';

const routes = [
  [/^\/?$/, () => import('./pages/lobby.js'), 'lobby'],
  [/^\/lobby$/, () => import('./pages/lobby.js'), 'lobby'],
  [/^\/login$/, () => import('./pages/auth.js'), 'login'],
  [/^\/register$/, () => import('./pages/auth.js'), 'register'],
  [/^\/join\/([\w-]+)$/, () => import('./pages/room.js'), 'join'],
  [/^\/room\/([\w-]+)$/, () => import('./pages/room.js'), 'room'],
  [/^\/game\/([\w-]+)$/, () => import('./pages/room.js'), 'game'],
  [/^\/replay\/([\w-]+)$/, () => import('./pages/replay.js'), 'replay'],
  [/^\/leaderboard(?:\/(\w+))?$/, () => import('./pages/leaderboard.js'), 'leaderboard'],
  [/^\/profile(?:\/([^/]+))?$/, () => import('./pages/profile.js'), 'profile'],
  [/^\/rules(?:\/(\w+))?$/, () => import('./pages/rules.js'), 'rules'],
];

let cleanup = null;
let renderSeq = 0;

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/lobby';
  const [path, qs] = raw.split('?');
  return { path, query: new URLSearchParams(qs || '') };
}

export function navigate(path) {
  if (location.hash === '#' + path) route();
  else location.hash = path;
}

async function route() {
  const seq = ++renderSeq;
  const { path, query } = parseHash();
  if (cleanup) { try { cleanup(); } catch (e) { console.error(e); } cleanup = null; }
  const main = document.getElementById('main');
  for (const [re, load, name] of routes) {
    const m = re.exec(path);
    if (!m) continue;
    renderHeader(name);
    clear(main, h('div.empty', t('loading')));
    try {
      const mod = await load();
      if (seq !== renderSeq) return;
      clear(main);
      const c = await mod.render(main, { name, args: m.slice(1).map(x => x && decodeURIComponent(x)), query });
      if (seq !== renderSeq) { if (typeof c === 'function') c(); return; }
      cleanup = typeof c === 'function' ? c : null;
    } catch (e) {
      console.error(e);
      clear(main, h('div.panel.empty', h('h2', t('error')), h('p', String(e.message || e)), h('button.btn', { onclick: () => route() }, t('retry'))));
    }
    return;
  }
  renderHeader('');
  clear(main, h('div.panel.empty', h('h2', t('not_found')), h('a.btn', { href: '#/lobby' }, t('back_to_lobby'))));
}

function renderHeader(active) {
  document.title = t('site') + ' · Siguo';
  const nav = document.getElementById('nav');
  const me = session.me;
  clear(nav,
    h('a', { href: '#/lobby', class: active === 'lobby' ? 'active' : '' }, t('nav_lobby')),
    h('a', { href: '#/leaderboard/ranked', class: active === 'leaderboard' ? 'active' : '' }, t('nav_leaderboard')),
    me && !me.guest ? h('a', { href: '#/profile/' + encodeURIComponent(me.name), class: active === 'profile' ? 'active' : '' }, t('nav_profile')) : null,
    h('a', { href: '#/rules/' + (localStorage.getItem('siguo_game') === 'hidden_front' ? 'hidden_front' : 'four_player'), class: active === 'rules' ? 'active' : '', 'data-testid': 'nav-rules' }, t('rules')),
  );
  const acct = document.getElementById('account');
  const meBox = document.getElementById('me');
  const lang = h('button.linkish.lang-btn', { onclick: () => { setLang(getLang() === 'zh' ? 'en' : 'zh'); route(); }, 'aria-label': t('lang_switch_label'), lang: getLang() === 'zh' ? 'en' : 'zh-CN' }, t('lang_switch'));
  // who we are (or 登录) stays in the bar; on a narrow screen the rest folds into the ☰ menu
  if (me) {
    clear(meBox, h('span.who', { 'data-testid': 'whoami' }, me.name, me.guest ? ` (${t('guest')})` : ''));
    clear(acct,
      me.guest ? h('a', { href: '#/register' }, t('nav_register')) : null,
      h('button.linkish', { onclick: async () => { await session.logout(); navigate('/login'); } }, t('nav_logout')),
      lang);
  } else {
    clear(meBox, h('a', { href: '#/login' }, t('nav_login')));
    clear(acct, h('a', { href: '#/register' }, t('nav_register')), lang);
  }
  const bar = document.querySelector('.topbar');
  const menuBtn = document.getElementById('menu-btn');
  bar.classList.remove('open');
  menuBtn.setAttribute('aria-expanded', 'false');
  menuBtn.setAttribute('aria-label', t('menu'));
  menuBtn.onclick = () => menuBtn.setAttribute('aria-expanded', String(bar.classList.toggle('open')));
  document.querySelector('.brand-name').textContent = t('site');
}

export function rerender() { route(); }

let bannerTimer;
export function banner(text, kind = '') {
  const b = document.getElementById('banner');
  clearTimeout(bannerTimer);
  if (!text) { b.hidden = true; return; }
  b.hidden = false;
  b.textContent = text;
  b.className = 'banner ' + kind;
  if (kind === 'ok') bannerTimer = setTimeout(() => { b.hidden = true; }, 2000);
}

window.addEventListener('hashchange', route);
session.onChange(() => renderHeader(routes.find(([re]) => re.test(parseHash().path))?.[2] || ''));
keepAlive(() => !!session.me);
session.load().finally(() => { route(); if (session.me && !session.me.guest) queue.restore(); });
