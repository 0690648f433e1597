// HTTP API client. Cookies carry the session (HttpOnly access + refresh cookies set by the server);
// on an expired access token the client refreshes once and retries.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

let refreshing = null;

async function refresh() {
  if (!refreshing) {
    refreshing = fetch('/api/auth/refresh', { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: '{}' })
      .then(r => r.ok)
      .catch(() => false)
      .finally(() => { setTimeout(() => { refreshing = null; }, 0); });
  }
  return refreshing;
}

export async function api(method, path, body, { retry = true } = {}) {
  const opts = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, 'network', String(e.message || e));
  }
  if (res.status === 401 && retry && !path.startsWith('/api/auth/login') && !path.startsWith('/api/auth/refresh')) {
    if (await refresh()) return api(method, path, body, { retry: false });
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!res.ok) {
    const e = data && data.error ? data.error : { code: 'http_' + res.status, message: res.statusText };
    throw new ApiError(res.status, e.code, e.message);
  }
  return data;
}

export const get = (p) => api('GET', p);
export const post = (p, b = {}) => api('POST', p, b);
export const put = (p, b = {}) => api('PUT', p, b);
export const del = (p) => api('DELETE', p);

/** Keep the access cookie fresh while the page is open (access tokens live ≤ 15 min). */
export function keepAlive(isLoggedIn) {
  setInterval(() => { if (isLoggedIn()) refresh(); }, 10 * 60 * 1000);
}
export { refresh };
