// The fleet map (Leaflet, no tiles: deployments may have no internet): the page's vehicles'
// last positions and routes, close ones clustered, labels that never overlap, a scale bar, and
// a view fitted to where most vehicles are, so one far away does not squeeze the rest into a
// corner ("All vehicles" shows it too). Refreshed from /console/fleet/map.json every 3 s.
'use strict';
(() => {
  const box = document.getElementById('map');
  const canvas = document.getElementById('map-canvas');
  if (!box || !canvas || !window.L || !window.L.markerClusterGroup) return;
  const L = window.L;
  const el = window.cvd.el;

  const map = L.map(canvas, { attributionControl: false, minZoom: 2, maxZoom: 18, zoomSnap: 1 });
  map.setView([48, 10], 4);
  L.control.scale({ imperial: false, position: 'bottomleft' }).addTo(map);
  const tracks = L.layerGroup().addTo(map);
  const clusters = L.markerClusterGroup({ maxClusterRadius: 40, showCoverageOnHover: false, spiderfyOnMaxZoom: true, animate: false });
  map.addLayer(clusters);
  const held = new Map(); // vin -> { marker, track, data }
  let mode = 'dense';
  // Until the operator zooms or pans, the map follows the vehicles (refitted at each refresh);
  // after that it stays where they put it, until they choose a fit again.
  let following = true;
  let fitting = false;
  let fittedTo = '';

  // --- Fitting: the dense part (most vehicles), or all of them.
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  function densePart(points) {
    if (points.length < 3) return points;
    const [mlat, mlon] = [median(points.map((p) => p[0])), median(points.map((p) => p[1]))];
    const k = Math.cos((mlat * Math.PI) / 180);
    const d = points.map((p) => Math.hypot(p[0] - mlat, (p[1] - mlon) * k));
    // Four times the median distance from the middle, and never less than about 2 km.
    const limit = Math.max(4 * median(d), 0.02);
    const dense = points.filter((_, i) => d[i] <= limit);
    return dense.length ? dense : points;
  }
  function fit(again) {
    const points = [...held.values()].map((h) => [h.data.lat, h.data.lon]);
    if (!points.length) return;
    const chosen = mode === 'all' ? points : densePart(points);
    const bounds = L.latLngBounds(chosen);
    // Refitted only when the vehicles moved: a map that keeps still keeps its markers still.
    const key = `${mode} ${bounds.toBBoxString()}`;
    if (!again && key === fittedTo) return;
    fittedTo = key;
    fitting = true;
    try {
      map.fitBounds(bounds, { padding: [28, 28], maxZoom: 16, animate: false });
    } finally {
      fitting = false;
    }
    for (const b of fitControl.buttons) b.setAttribute('aria-pressed', String(b.dataset.mode === mode));
  }

  const fitControl = L.control({ position: 'topright' });
  fitControl.onAdd = () => {
    const div = el('div', { class: 'map-fit leaflet-bar', role: 'group', 'aria-label': 'Fit the map' });
    fitControl.buttons = [
      ['dense', 'Where most are'],
      ['all', 'All vehicles'],
    ].map(([m, label]) => {
      const b = el('button', { type: 'button', 'data-mode': m, 'aria-pressed': String(m === mode) }, label);
      b.addEventListener('click', () => {
        mode = m;
        following = true;
        fit(true);
      });
      div.appendChild(b);
      return b;
    });
    fitControl.outside = div.appendChild(el('p', { class: 'outside', 'aria-live': 'polite' }, ''));
    L.DomEvent.disableClickPropagation(div);
    return div;
  };
  fitControl.addTo(map);

  // --- Labels: a vehicle's label is hidden where it would overlap one already shown.
  let pending;
  function declutter() {
    clearTimeout(pending);
    pending = setTimeout(() => {
      const labels = [...canvas.querySelectorAll('.leaflet-tooltip.vin-label')];
      for (const l of labels) l.classList.remove('label-hidden');
      const kept = [];
      for (const l of labels) {
        const r = l.getBoundingClientRect();
        if (kept.some((k) => r.left < k.right && k.left < r.right && r.top < k.bottom && k.top < r.bottom)) l.classList.add('label-hidden');
        else kept.push(r);
      }
      const view = map.getBounds();
      const outside = [...held.values()].filter((h) => !view.contains([h.data.lat, h.data.lon])).length;
      box.dataset.outside = String(outside);
      fitControl.outside.textContent = outside ? `${outside} ${outside === 1 ? 'vehicle' : 'vehicles'} outside this view` : '';
      canvas.dataset.zoom = String(map.getZoom());
    }, 30);
  }
  map.on('zoomend moveend', declutter);
  map.on('movestart zoomstart', () => {
    if (!fitting) following = false;
  });
  clusters.on('animationend', declutter);

  // --- Vehicles.
  function popupOf(v) {
    const div = el('div', { class: 'map-popup' });
    const a = div.appendChild(el('a', { href: `/console/vehicles/${encodeURIComponent(v.vin)}` }));
    a.appendChild(el('code', {}, v.vin));
    div.appendChild(el('div', {}, v.manufacturer || 'unknown manufacturer'));
    div.appendChild(el('time', { datetime: v.at }, window.cvd.formatTime(Date.parse(v.at))));
    return div;
  }
  function place(v) {
    const h = held.get(v.vin);
    const at = L.latLng(v.lat, v.lon);
    if (!h) {
      const marker = L.marker(at, { icon: L.divIcon({ className: 'vehicle', iconSize: [12, 12] }), title: v.vin, keyboard: true });
      marker.bindTooltip(el('span', {}, v.vin.slice(-4)), { permanent: true, direction: 'right', offset: [6, 0], className: 'vin-label', interactive: false });
      // The popup pans clear of the fit control in the top corner, or that control covers its link.
      marker.bindPopup(() => popupOf(held.get(v.vin).data), { autoPanPaddingTopLeft: L.point(12, 12 + fitControl.getContainer().offsetHeight) });
      marker.on('add', () => {
        const e = marker.getElement();
        e.dataset.vin = v.vin;
        e.dataset.lat = String(held.get(v.vin).data.lat);
        e.dataset.lon = String(held.get(v.vin).data.lon);
      });
      const track = L.polyline(v.track, { className: 'track', interactive: false }).addTo(tracks);
      held.set(v.vin, { marker, track, data: v });
      clusters.addLayer(marker);
      return;
    }
    h.track.setLatLngs(v.track);
    const moved = h.data.lat !== v.lat || h.data.lon !== v.lon;
    h.data = v;
    if (moved) {
      // A clustered marker that moves is taken out and put back, so its cluster is recomputed.
      clusters.removeLayer(h.marker);
      h.marker.setLatLng(at);
      clusters.addLayer(h.marker);
    }
  }

  function draw(vehicles) {
    const seen = new Set(vehicles.map((v) => v.vin));
    for (const [vin, h] of held) {
      if (seen.has(vin)) continue;
      clusters.removeLayer(h.marker);
      tracks.removeLayer(h.track);
      held.delete(vin);
    }
    for (const v of vehicles) place(v);
    box.dataset.vehicles = String(held.size);
    if (following && held.size) fit();
    declutter();
  }

  window.cvd.every(3000, async () => draw((await window.cvd.getJson(box.dataset.src)).vehicles));
})();
