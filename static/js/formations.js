// Formations saved in the account (HTTP /api/formations), per game: a formation of the
// four-player game and one of Hidden Front are kept apart (`variant`).
import { h, toast } from './dom.js';
import { t, errorText } from './i18n.js';
import { api } from './api.js';
import { toFormation, formationsOf } from './geometry.js';

export { toFormation, formationsOf };

export async function saveFormation(seat, deployment, variant = 'four_player') {
  const name = prompt(t('formation_name'), '');
  if (!name) return;
  try {
    // The four-player game is the default: its formations are sent as before.
    const body = { name: name.trim(), formation: toFormation(deployment) };
    if (variant !== 'four_player') body.variant = variant;
    await api('POST', '/api/formations', body);
    toast(t('saved'));
  } catch (e) {
    toast(errorText(e), 'error');
  }
}

/** Show the list of formations of a game; resolves with the chosen one or null. */
export function formationsDialog(variant = 'four_player') {
  return new Promise(async (resolve) => {
    let list = [];
    let err = null;
    try {
      const d = await api('GET', '/api/formations' + (variant !== 'four_player' ? '?variant=' + encodeURIComponent(variant) : ''));
      list = formationsOf(Array.isArray(d) ? d : (d.formations || []), variant);
    } catch (e) { err = errorText(e); }
    let chosen = null;
    const dlg = h('dialog',
      h('h2', t('formations')),
      err ? h('p.error-text', err) : null,
      !err && !list.length ? h('p.muted', t('no_formations')) : null,
      h('div.stack', list.map(f => h('div.row',
        h('span.grow', f.name),
        h('button.btn.small.primary', { onclick: () => { chosen = f; dlg.close(); } }, t('load_formation')),
        h('button.btn.small.danger', {
          onclick: async (ev) => {
            try { await api('DELETE', '/api/formations/' + f.id); ev.target.closest('.row').remove(); } catch (e) { toast(errorText(e), 'error'); }
          },
        }, '✕')))),
      h('div.row', { style: { marginTop: '12px' } }, h('button.btn', { onclick: () => dlg.close() }, t('close'))));
    document.body.append(dlg);
    dlg.addEventListener('close', () => { dlg.remove(); resolve(chosen); });
    dlg.showModal();
  });
}
