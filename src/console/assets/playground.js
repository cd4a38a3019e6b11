// The mapping playground: the dry run of the edited mapping 300 ms after the last keystroke,
// the manufacturer's cases on demand, and the edited mapping to copy or download.
'use strict';
(() => {
  const root = document.getElementById('playground');
  if (!root) return;
  const raw = document.getElementById('raw');
  const mapping = document.getElementById('mapping');
  const status = document.getElementById('status');
  const output = document.getElementById('output');
  const cases = document.getElementById('cases');
  const { el, postJson } = window.cvd;
  const where = () => ({ manufacturer: root.dataset.manufacturer, messageType: root.dataset.messageType, mapping: mapping.value });
  let seq = 0;

  function showRun(r) {
    output.replaceChildren();
    if (r.compileError) {
      status.className = 'error';
      status.textContent = r.compileError;
      return;
    }
    status.className = r.valid ? 'ok' : 'error';
    status.textContent = r.valid ? `Valid: ${r.items.length} items would be stored (${r.mappingVersion}).` : `Would be quarantined: ${r.failure.code}: ${r.failure.reason}`;
    const table = el('table');
    table.appendChild(el('thead')).appendChild(el('tr')).append(el('th', {}, 'Item'), el('th', {}, 'VIN'), el('th', {}, 'Payload'), el('th', {}, 'Catalog validation'));
    const body = table.appendChild(el('tbody'));
    for (const item of r.items) {
      const tr = body.appendChild(el('tr', { 'data-item': item.item }));
      tr.append(el('td', {}, item.item), el('td', {}, item.vin));
      tr.appendChild(el('td')).appendChild(el('pre', {}, JSON.stringify(item.payload, null, 1)));
      tr.appendChild(el('td', { class: item.valid ? 'ok' : 'error' }, item.valid ? 'valid' : item.errors.join('; ')));
    }
    output.appendChild(table);
  }

  async function run() {
    const mine = ++seq;
    status.className = 'muted';
    status.textContent = 'Running…';
    try {
      const r = await postJson('/console/playground/run.json', { ...where(), raw: raw.value });
      if (mine === seq) showRun(r);
    } catch (err) {
      if (mine === seq) {
        status.className = 'error';
        status.textContent = err.message;
      }
    }
  }

  let timer;
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(run, 300);
  };
  raw.addEventListener('input', later);
  mapping.addEventListener('input', later);
  run();

  document.getElementById('run-cases').addEventListener('click', async () => {
    cases.replaceChildren(el('p', { class: 'muted' }, 'Running the cases…'));
    try {
      const r = await postJson('/console/playground/cases.json', where());
      if (r.compileError) return cases.replaceChildren(el('p', { class: 'error' }, r.compileError));
      const failed = r.cases.filter((c) => c.problems.length > 0);
      const list = el('ul');
      for (const c of r.cases) {
        const li = list.appendChild(el('li', { 'data-case': c.name, class: c.problems.length ? 'error' : 'ok' }, `${c.name}: ${c.problems.length ? 'FAILED' : 'passed'}`));
        if (c.problems.length) li.appendChild(el('pre', {}, c.problems.join('\n')));
      }
      cases.replaceChildren(el('p', { id: 'cases-summary', class: failed.length ? 'error' : 'ok' }, `${r.cases.length - failed.length} of ${r.cases.length} cases pass.`), list);
    } catch (err) {
      cases.replaceChildren(el('p', { class: 'error' }, err.message));
    }
  });

  // The pick form: another manufacturer's message types and fixtures, at once.
  const pick = document.getElementById('pick');
  if (pick) {
    const [maker, type, fixture] = ['manufacturer', 'messageType', 'fixture'].map((n) => pick.elements.namedItem(n));
    const options = (select, values, chosen, none) => {
      select.replaceChildren(...(none ? [el('option', { value: '' }, none)] : []), ...values.map((v) => el('option', { value: v }, v)));
      select.value = chosen;
    };
    let lists = null;
    maker.addEventListener('change', async () => {
      lists = await window.cvd.getJson(`/console/playground/lists.json?manufacturer=${encodeURIComponent(maker.value)}`);
      options(type, lists.messageTypes, lists.messageTypes[0] || '');
      options(fixture, lists.fixtures, lists.fixtureFor[type.value] || '', '(none)');
      pick.dataset.refreshed = maker.value;
    });
    type.addEventListener('change', () => {
      if (lists) fixture.value = lists.fixtureFor[type.value] || '';
    });
  }

  function download(name, text, mime) {
    const url = URL.createObjectURL(new Blob([text], { type: mime }));
    const a = el('a', { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  document.getElementById('save-case').addEventListener('click', async () => {
    const name = document.getElementById('case-name').value.trim();
    try {
      const r = await postJson('/console/playground/case.json', { ...where(), raw: raw.value, name });
      if (r.compileError) throw new Error(r.compileError);
      download(`${name}.json`, `${JSON.stringify(r.case, null, 2)}\n`, 'application/json');
      status.className = 'ok';
      status.textContent = `Saved as ${name}.json: put it in ${r.file.replace(/[^/]+$/, '')} and run the cases.`;
    } catch (err) {
      status.className = 'error';
      status.textContent = err.message;
    }
  });

  document.getElementById('copy').addEventListener('click', async () => {
    await navigator.clipboard.writeText(mapping.value);
    status.textContent = 'Mapping copied to the clipboard.';
  });
  document.getElementById('download').addEventListener('click', () => download(root.dataset.file, mapping.value, 'text/plain'));
})();
