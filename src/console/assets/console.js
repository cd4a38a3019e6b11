// Shared by the console's pages: JSON calls carrying the session's CSRF token, and polling.
'use strict';
window.cvd = {
  csrf() {
    const meta = document.querySelector('meta[name=csrf]');
    return meta ? meta.content : '';
  },
  async getJson(url) {
    const res = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    return res.json();
  },
  async postJson(url, body) {
    const res = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': window.cvd.csrf() },
      body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.message || `${res.status}`);
    return data;
  },
  /** Calls fn now and every ms milliseconds while the page is open; a failure waits for the next turn. */
  every(ms, fn) {
    const tick = () => Promise.resolve(fn()).catch(() => {}).finally(() => setTimeout(tick, ms));
    tick();
  },
  el(tag, attrs, text) {
    const ns = ['svg', 'circle', 'polyline', 'text', 'g', 'title', 'rect'].includes(tag) ? 'http://www.w3.org/2000/svg' : null;
    const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  },
};
