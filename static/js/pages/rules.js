// The rules page of each game (#/rules/four_player, #/rules/hidden_front): board, pieces,
// deployment, moving, combat, endings, clocks and room options, in the page's language (Chinese
// first; English by the switch in the top bar). The words are in rules/*.js.
import { h } from '../dom.js';
import { t, getLang, gameName } from '../i18n.js';
import { VARIANTS } from '../board.js';
import * as fourPlayer from '../rules/four-player.js';
import * as hiddenFront from '../rules/hidden-front.js';

const TEXT = { four_player: fourPlayer, hidden_front: hiddenFront };

/** One block of a section: a paragraph, a list, a numbered list or a table. */
function block(b) {
  if (typeof b === 'string') return h('p', b);
  if (Array.isArray(b)) return h('ul', b.map(x => h('li', x)));
  if (b.ol) return h('ol', b.ol.map(x => h('li', x)));
  return h('table.list.rules-table', h('thead', h('tr', b.head.map(x => h('th', x)))),
    h('tbody', b.table.map(row => h('tr', row.map(x => h('td', String(x)))))));
}

export async function render(main, { args }) {
  const variant = VARIANTS.includes(args[0]) ? args[0] : 'four_player';
  const sections = TEXT[variant][getLang()] || TEXT[variant].zh;
  main.append(h('article.rules.panel', { 'data-testid': 'rules', 'data-variant': variant, lang: getLang() === 'zh' ? 'zh-CN' : 'en' },
    h('div.tabs', VARIANTS.map(v => h('a', { href: '#/rules/' + v, class: v === variant ? 'active' : '', 'data-testid': 'rules-tab-' + v }, gameName(v)))),
    h('h1', t('rules_title', { game: gameName(variant) })),
    h('nav.rules-toc', sections.map(([id, title]) => h('a', { href: '#/rules/' + variant, onclick: (ev) => { ev.preventDefault(); document.getElementById('rules-' + id).scrollIntoView(); } }, title))),
    sections.map(([id, title, blocks]) => h('section', { id: 'rules-' + id, 'data-testid': 'rules-' + id },
      h('h2', title), blocks.map(block))),
    h('p', h('a.btn', { href: '#/lobby' }, t('back_to_lobby')))));
}
