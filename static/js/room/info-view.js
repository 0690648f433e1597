// The room panel: its kind, the invite link of a casual room, its options.
import { h, clear, toast } from '../dom.js';
import { t, gameName } from '../i18n.js';
import { optionsList } from '../options.js';

const KIND = { casual: 'casual', practice: 'practice_mode', ranked: 'ranked_mode', hf_ranked: 'hf_ranked' };

export function createInfoView() {
  const el = h('section.panel');
  let last;
  return {
    el,
    render(s) {
      if (s.room === last) return;
      last = s.room;
      const r = s.room;
      if (!r) { clear(el); return; }
      const kind = r.kind || 'casual';
      const parts = [h('h2', t('room'), ' ', h('span.tag', t(KIND[kind] || 'ranked_dual_mode')), ' ',
        h('span.tag.game-tag', { 'data-testid': 'room-game', 'data-variant': r.variant || 'four_player' }, gameName(r.variant)))];
      if (r.invite && kind === 'casual') {
        parts.push(h('div.small.muted', t('invite_code_is')), h('div.invite-code', { 'data-testid': 'invite-code' }, r.invite));
        const link = location.origin + location.pathname + '#/join/' + r.invite;
        const inp = h('input', { type: 'text', readOnly: true, value: link, 'aria-label': t('invite_link'), 'data-testid': 'invite-link' });
        parts.push(h('div.small.muted', t('invite_link')), h('div.invite', inp, h('button.btn.small', {
          onclick: async () => { try { await navigator.clipboard.writeText(link); toast(t('copied')); } catch { inp.select(); } },
        }, t('copy'))));
      }
      parts.push(optionsList(r.options || {}, r.variant));
      // The rules open in a new tab: the game goes on here.
      parts.push(h('a.small', { href: '#/rules/' + (r.variant || 'four_player'), target: '_blank', rel: 'noopener', 'data-testid': 'room-rules' }, t('rules_link')));
      clear(el, ...parts);
    },
  };
}
