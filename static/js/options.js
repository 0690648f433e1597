// Room options (rules.md §10; Hidden Front: hidden-front.md §6, §8): a form and a one-line summary.
import { h } from './dom.js';
import { t } from './i18n.js';

export const DEFAULTS = {
  info_mode: 'four_dark', move_seconds: 30, deploy_seconds: 90, reconnect_seconds: 60,
  max_steps: 300, max_skips: 5, bombs_front_row: false, flag_capture: 'any', mines: 'invincible',
};
/**
 * The options of each game, with its defaults: Hidden Front has no information modes, step limit
 * or skip count (its draw and timeout rules are fixed), no front-row bombs, and mutual mines.
 */
export const GAME_DEFAULTS = {
  four_player: DEFAULTS,
  hidden_front: { move_seconds: 30, deploy_seconds: 90, reconnect_seconds: 60, flag_capture: 'any', mines: 'mutual' },
};
const defaultsOf = (variant) => GAME_DEFAULTS[variant] || DEFAULTS;
const RANGES = {
  move_seconds: [10, 120], deploy_seconds: [30, 300], reconnect_seconds: [15, 300], max_steps: [50, 2000], max_skips: [1, 20],
};
const CHOICES = {
  info_mode: [['four_dark', 'four_dark'], ['double_open', 'double_open'], ['all_open', 'all_open']],
  flag_capture: [['any', 'flag_any'], ['not_commander', 'flag_not_commander'], ['engineer_only', 'flag_engineer_only']],
  mines: [['invincible', 'mines_invincible'], ['mutual', 'mines_mutual']],
};

export function optionsForm(initial, variant = 'four_player') {
  const o = { ...defaultsOf(variant), ...initial };
  const inputs = {};
  const fields = [];
  for (const key of Object.keys(defaultsOf(variant))) {
    let input;
    if (CHOICES[key]) {
      input = h('select', { name: key }, CHOICES[key].map(([v, label]) => h('option', { value: v, selected: o[key] === v }, t(label))));
    } else if (key === 'bombs_front_row') {
      input = h('select', { name: key }, h('option', { value: 'false', selected: !o[key] }, t('no')), h('option', { value: 'true', selected: !!o[key] }, t('yes')));
    } else {
      const [min, max] = RANGES[key];
      input = h('input', { type: 'number', name: key, min, max, value: o[key], required: true });
    }
    inputs[key] = input;
    fields.push(h('label.field', h('span', t('opt_' + key)), input));
  }
  return {
    el: h('div.opts-grid', fields),
    value() {
      const v = {};
      for (const [k, input] of Object.entries(inputs)) {
        if (k === 'bombs_front_row') v[k] = input.value === 'true';
        else if (RANGES[k]) v[k] = Number(input.value);
        else v[k] = input.value;
      }
      return v;
    },
  };
}

export function optionsSummary(o, variant = 'four_player') {
  if (!o) return '';
  const hf = variant === 'hidden_front';
  const parts = hf ? [`${o.move_seconds ?? 30}s`] : [t(o.info_mode || 'four_dark'), `${o.move_seconds ?? 30}s`];
  if (hf) {
    if (o.flag_capture && o.flag_capture !== 'any') parts.push(t('flag_' + o.flag_capture));
    if (o.mines && o.mines !== 'mutual') parts.push(t('mines_' + o.mines));
    return parts.join(' · ');
  }
  if (o.max_steps && o.max_steps !== 300) parts.push(`${o.max_steps}${t('step').includes('步') ? '步' : ' steps'}`);
  if (o.bombs_front_row) parts.push(t('opt_bombs_badge'));
  if (o.flag_capture && o.flag_capture !== 'any') parts.push(t('flag_' + o.flag_capture));
  if (o.mines && o.mines !== 'invincible') parts.push(t('mines_' + o.mines));
  return parts.join(' · ');
}

export function optionsList(o, variant = 'four_player') {
  const keys = Object.keys(defaultsOf(variant));
  const x = { ...defaultsOf(variant), ...o };
  const val = (k) => {
    const v = x[k];
    if (k === 'info_mode') return t(v);
    if (k === 'flag_capture') return t('flag_' + v);
    if (k === 'mines') return t('mines_' + v);
    if (k === 'bombs_front_row') return v ? t('yes') : t('no');
    return String(v);
  };
  return h('dl.opts-list', keys.map(k => h('div.row', h('dt.grow', t('opt_' + k)), h('dd', { style: { margin: 0, fontWeight: 600, color: '#24221f' } }, val(k)))));
}
