// The pipeline charts: one chart per measure over the chosen range, fed from
// /console/pipeline/series.json every 5 s (charts.js draws them).
'use strict';
(() => {
  const box = document.getElementById('charts');
  if (!box || !window.cvd.charts) return;
  const cards = new Map();
  const sum = (chart) => chart.values.flat().reduce((a, v) => a + (v || 0), 0);

  window.cvd.every(5000, async () => {
    const s = await window.cvd.getJson(box.dataset.src);
    const xRange = [s.minutes[0], s.minutes[s.minutes.length - 1] + s.stepS];
    for (const chart of s.charts) {
      let card = cards.get(chart.id);
      if (!card) {
        card = window.cvd.el('section', { class: 'card', 'data-chart': chart.id });
        card.appendChild(window.cvd.el('h2', {}, chart.title));
        box.appendChild(card);
        cards.set(chart.id, card);
      }
      card.dataset.total = String(sum(chart));
      card.dataset.range = s.range;
      window.cvd.charts.draw(card, { key: chart.series.join('\n'), series: chart.series, unit: chart.unit, yRange: chart.yRange, data: [s.minutes, ...chart.values], xRange });
    }
  });
})();
