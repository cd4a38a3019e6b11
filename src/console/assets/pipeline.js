// The pipeline charts: one uPlot chart per measure, fed from /console/pipeline/series.json every 5 s.
'use strict';
(() => {
  const box = document.getElementById('charts');
  if (!box || !window.uPlot) return;
  const COLORS = ['#1a4d8f', '#d9480f', '#2b8a3e', '#862e9c', '#e67700', '#0b7285', '#5c940d', '#c2255c'];
  const charts = new Map();

  function draw(chart, minutes) {
    const data = [minutes, ...chart.values];
    const key = chart.series.join('\n');
    const held = charts.get(chart.id);
    if (held && held.key === key) {
      held.plot.setData(data);
      held.card.dataset.total = String(sum(chart));
      return;
    }
    let card = held ? held.card : null;
    if (!card) {
      card = window.cvd.el('section', { class: 'card', 'data-chart': chart.id });
      card.appendChild(window.cvd.el('h2', {}, chart.title));
      box.appendChild(card);
    }
    if (held) held.plot.destroy();
    const width = Math.max(380, card.clientWidth - 30);
    const opts = {
      width,
      height: 220,
      series: [{}, ...chart.series.map((name, i) => ({ label: name, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: false }))],
      axes: [{}, { size: 64 }],
      scales: { y: { range: (_u, min, max) => [0, Math.max(1, max * 1.1)] } },
    };
    const plot = new window.uPlot(opts, data, card);
    card.dataset.total = String(sum(chart));
    charts.set(chart.id, { key, plot, card });
  }

  const sum = (chart) => chart.values.flat().reduce((a, v) => a + (v || 0), 0);

  window.cvd.every(5000, async () => {
    const s = await window.cvd.getJson(box.dataset.src);
    for (const chart of s.charts) draw(chart, s.minutes);
  });
})();
