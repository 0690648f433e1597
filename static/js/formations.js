// Formations saved in the account (HTTP /api/formations).
import { h, toast } from './dom.js';
import { t, errorText } from './i18n.js';
import { api } from './api.js';

/** Convert a deployment (global stations) to a formation (local names a1..e6). */
export function toFormation(deployment) {
  const pieces = deployment && (deployment.pieces || deployment);
  const f = {};
  for (const [stn, rank] of Object.entries(pieces || {})) f[stn.slice(1)] = rank;
  return f;
}

export async function saveFormation(seat, deployment) {
  const name = prompt(t('formation_name'), '');
  if (!name) return;
  try {
    await api('POST', '/api/formations', { name: name.trim(), formation: toFormation(deployment) });
    toast(t('saved'));
  } catch (e) {
    toast(errorText(e), 'error');
  }
}

/** Show the list of formations; resolves with the chosen one or null. */
export function formationsDialog() {
  return new Promise(async (resolve) => {
    let list = [];
    let err = null;
    try {
      const d = await api('GET', '/api/formations');
      list = Array.isArray(d) ? d : (d.formations || []);
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
