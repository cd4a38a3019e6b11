// A vehicle's history charts: each numeric item over the chosen range, refreshed every 10 s.
'use strict';
(() => {
  const box = document.getElementById('charts');
  if (!box || !window.cvd.charts) return;
  const SPAN = { '1h': 3600, '6h': 6 * 3600, '24h': 86400, '7d': 7 * 86400 }[box.dataset.range] || 86400;
  for (const card of box.querySelectorAll('[data-chart]')) {
    window.cvd.every(10_000, async () => {
      const h = await window.cvd.getJson(card.dataset.src);
      const to = Date.now() / 1000;
      window.cvd.charts.draw(card, { key: h.item, series: [h.item], unit: h.unit, data: [h.times, h.values], xRange: [to - SPAN, to], spanGaps: true });
      card.dataset.truncated = String(h.truncated);
    });
  }
})();
