// The console's time charts (uPlot): one look everywhere, times in the format and zone the
// operator chose (console.js), rebuilt when the zone is switched.
'use strict';
(() => {
  if (!window.uPlot || !window.cvd) return;
  const COLORS = ['#1a4d8f', '#d9480f', '#2b8a3e', '#862e9c', '#e67700', '#0b7285', '#5c940d', '#c2255c'];
  const held = new Set();
  /** "HH:MM"; "MM-DD HH:MM" over more than a day and a half; "MM-DD" over more than 3 days: cut from the console's own format. */
  const tick = (ts, span) => {
    const text = window.cvd.formatTime(ts * 1000);
    if (span > 3 * 86400) return text.slice(5, 10);
    return span > 36 * 3600 ? `${text.slice(5, 10)} ${text.slice(11, 16)}` : text.slice(11, 16);
  };
  const num = (v, unit) => (v == null ? '—' : `${Number(v.toFixed(3))}${unit ? ` ${unit}` : ''}`);

  function build(h) {
    if (h.plot) h.plot.destroy();
    const width = Math.max(320, h.card.clientWidth - 30);
    h.plot = new window.uPlot(
      {
        width,
        height: 220,
        tzDate: (ts) => (window.cvd.utc() ? window.uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC') : new Date(ts * 1e3)),
        series: [
          { value: (_u, ts) => (ts == null ? '—' : window.cvd.formatTime(ts * 1000)) },
          ...h.series.map((name, i) => ({ label: name, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: Boolean(h.spanGaps), value: (_u, v) => num(v, h.unit) })),
        ],
        // Ticks in the console's format and zone: the time, with the date where the range spans days.
        axes: [{ values: (u, splits) => splits.map((ts) => tick(ts, u.scales.x.max - u.scales.x.min)) }, { size: 64 }],
        scales: {
          x: { time: true, range: h.xRange ? () => h.xRange : undefined },
          y: { range: h.yRange ? () => h.yRange : (_u, _min, max) => [0, Math.max(1, (max || 0) * 1.1)] },
        },
      },
      h.data,
      h.card,
    );
    h.card.dataset.points = String(h.data[0].length);
  }

  window.cvd.charts = {
    /**
     * Draws or updates the chart in `card`: spec = { key (series names: a new key rebuilds),
     * series, data ([times in s, ...values per series]), unit, xRange, yRange, spanGaps }.
     */
    draw(card, spec) {
      const h = card.cvdChart;
      if (h && h.key === spec.key) {
        Object.assign(h, spec);
        if (spec.xRange) h.plot.setScale('x', { min: spec.xRange[0], max: spec.xRange[1] });
        h.plot.setData(spec.data);
        card.dataset.points = String(spec.data[0].length);
        return;
      }
      const next = Object.assign(h || { card }, spec);
      card.cvdChart = next;
      held.add(next);
      build(next);
    },
  };
  window.cvd.onZoneChange.push(() => {
    for (const h of held) build(h);
  });
})();
