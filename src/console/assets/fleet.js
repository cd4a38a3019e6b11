// The fleet map: the page's vehicles' last positions and routes as SVG, from the data alone (no
// tiles: deployments may have no internet). Redrawn from /console/fleet/map.json every 3 s.
'use strict';
(() => {
  const box = document.getElementById('map');
  const canvas = document.getElementById('map-canvas');
  if (!box || !canvas) return;
  const W = 600;
  const H = 420;
  const PAD = 24;

  function draw(vehicles) {
    const pts = vehicles.flatMap((v) => v.track.concat([[v.lat, v.lon]]));
    const svg = window.cvd.el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `Map of ${vehicles.length} vehicles` });
    if (pts.length === 0) {
      svg.appendChild(window.cvd.el('text', { x: W / 2 - 80, y: H / 2 }, 'No positions reported yet'));
    } else {
      const lats = pts.map((p) => p[0]);
      const lons = pts.map((p) => p[1]);
      const minLat = Math.min(...lats), maxLat = Math.max(...lats), minLon = Math.min(...lons), maxLon = Math.max(...lons);
      // Equirectangular, with longitude shrunk by cos(latitude) so distances look right.
      const k = Math.cos(((minLat + maxLat) / 2) * (Math.PI / 180));
      const spanX = Math.max((maxLon - minLon) * k, 1e-4);
      const spanY = Math.max(maxLat - minLat, 1e-4);
      const scale = Math.min((W - 2 * PAD) / spanX, (H - 2 * PAD) / spanY);
      const x = (lon) => PAD + (lon - minLon) * k * scale;
      const y = (lat) => H - PAD - (lat - minLat) * scale;
      for (const v of vehicles) {
        if (v.track.length > 1) svg.appendChild(window.cvd.el('polyline', { class: 'track', points: v.track.map((p) => `${x(p[1]).toFixed(1)},${y(p[0]).toFixed(1)}`).join(' ') }));
      }
      for (const v of vehicles) {
        const g = window.cvd.el('g', { 'data-vin': v.vin, 'data-lat': v.lat, 'data-lon': v.lon });
        g.appendChild(window.cvd.el('circle', { class: 'pos', cx: x(v.lon).toFixed(1), cy: y(v.lat).toFixed(1), r: 5 }));
        g.appendChild(window.cvd.el('text', { x: (x(v.lon) + 7).toFixed(1), y: (y(v.lat) + 3).toFixed(1) }, v.vin.slice(-4)));
        g.appendChild(window.cvd.el('title', {}, `${v.vin} (${v.manufacturer || '?'}) at ${v.at}`));
        svg.appendChild(g);
      }
    }
    canvas.replaceChildren(svg);
  }

  window.cvd.every(3000, async () => draw((await window.cvd.getJson(box.dataset.src)).vehicles));
})();
