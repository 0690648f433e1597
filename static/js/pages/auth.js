// Log in / register / play as guest.
import { h } from '../dom.js';
import { t, errorText } from '../i18n.js';
import { session } from '../session.js';
import { navigate } from '../main.js';

export function render(main, { name, query }) {
  const isRegister = name === 'register';
  const next = query.get('next') || '/lobby';
  const err = h('div.error-text', { role: 'alert', 'data-testid': 'auth-error' });
  const user = h('input', { type: 'text', name: 'username', autocomplete: 'username', required: true, minlength: 3, maxlength: 20, 'aria-describedby': 'uhint' });
  const pass = h('input', { type: 'password', name: 'password', autocomplete: isRegister ? 'new-password' : 'current-password', required: true, minlength: isRegister ? 8 : 1, maxlength: 128 });
  const pass2 = isRegister ? h('input', { type: 'password', name: 'password2', autocomplete: 'new-password', required: true }) : null;
  const submit = h('button.btn.primary.big', { type: 'submit', style: { width: '100%' } }, isRegister ? t('register') : t('login'));
  const form = h('form.stack', {
    onsubmit: async (ev) => {
      ev.preventDefault();
      err.textContent = '';
      if (isRegister && pass.value !== pass2.value) { err.textContent = t('passwords_differ'); return; }
      submit.disabled = true;
      try {
        if (isRegister) await session.register(user.value.trim(), pass.value);
        else await session.login(user.value.trim(), pass.value);
        navigate(next);
      } catch (e) {
        err.textContent = errorText(e);
      } finally {
        submit.disabled = false;
      }
    },
  },
    h('label.field', h('span', t('username')), user, isRegister ? h('div.hint#uhint', t('username_hint')) : null),
    h('label.field', h('span', t('password')), pass, isRegister ? h('div.hint', t('password_hint')) : null),
    isRegister ? h('label.field', h('span', t('password_again')), pass2) : null,
    err,
    submit,
  );
  const guestBtn = h('button.btn', {
    style: { width: '100%' }, 'data-testid': 'guest',
    onclick: async () => {
      try { await session.guest(); navigate(next); } catch (e) { err.textContent = errorText(e); }
    },
  }, t('play_as_guest'));
  main.append(h('div.auth-wrap',
    h('div.panel.stack',
      h('h1', isRegister ? t('register') : t('login')),
      form,
      h('p.small.muted', isRegister ? t('have_account') : t('no_account'), ' ',
        h('a', { href: isRegister ? '#/login' : '#/register' }, isRegister ? t('login') : t('register'))),
      guestBtn,
    )));
  user.focus();
}
