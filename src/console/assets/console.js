// Shared by the console's pages: JSON calls carrying the session's CSRF token, polling, and the
// one time format (UTC, or the browser's zone when the operator switches to it) with ages.
'use strict';
(() => {
  const TZ_KEY = 'cvd-console-times';
  const pad = (n) => String(n).padStart(2, '0');
  const meta = (name) => {
    const m = document.querySelector(`meta[name=${name}]`);
    return m ? m.content : '';
  };
  // Ages count from the server's clock: the browser's may be off.
  const served = Date.parse(meta('server-time'));
  const skew = Number.isNaN(served) ? 0 : served - Date.now();

  window.cvd = {
    csrf: () => meta('csrf'),
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
    /** True when times are shown in UTC (the default), false for the browser's zone. */
    utc: () => localStorage.getItem(TZ_KEY) !== 'local',
    /** A time (epoch ms) in the console's format, in the chosen zone. */
    formatTime(ms) {
      const d = new Date(ms);
      if (window.cvd.utc()) return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
      const off = -d.getTimezoneOffset();
      const zone = `UTC${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zone}`;
    },
    ageText(ms) {
      const s = Math.max(0, Math.floor((Date.now() + skew - ms) / 1000));
      if (s < 60) return `${s} s ago`;
      if (s < 3600) return `${Math.floor(s / 60)} min ago`;
      if (s < 48 * 3600) return `${Math.floor(s / 3600)} h ago`;
      return `${Math.floor(s / 86400)} d ago`;
    },
    /** Every <time> under root in the chosen zone, ages kept current; listeners learn of a switch. */
    showTimes(root) {
      for (const t of (root || document).querySelectorAll('time[datetime]')) {
        const ms = Date.parse(t.getAttribute('datetime'));
        if (Number.isNaN(ms)) continue;
        if (t.hasAttribute('data-age')) {
          t.textContent = window.cvd.ageText(ms);
          t.title = window.cvd.formatTime(ms);
        } else if (!t.hasAttribute('data-date')) {
          t.textContent = window.cvd.formatTime(ms);
        }
      }
    },
    onZoneChange: [],
  };

  const button = document.getElementById('tz-switch');
  const label = () => {
    if (!button) return;
    button.textContent = window.cvd.utc() ? 'Times: UTC' : 'Times: local';
    button.setAttribute('aria-pressed', String(!window.cvd.utc()));
  };
  if (button) {
    button.addEventListener('click', () => {
      localStorage.setItem(TZ_KEY, window.cvd.utc() ? 'local' : 'utc');
      label();
      window.cvd.showTimes();
      for (const f of window.cvd.onZoneChange) f();
    });
  }
  label();
  window.cvd.showTimes();
  setInterval(() => {
    for (const t of document.querySelectorAll('time[data-age]')) t.textContent = window.cvd.ageText(Date.parse(t.getAttribute('datetime')));
  }, 1000);
})();
