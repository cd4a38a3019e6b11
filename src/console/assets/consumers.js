// The subscription form: a topic's own checkbox checks or clears all of its items, and shows
// whether some of them are checked.
'use strict';
(() => {
  for (const set of document.querySelectorAll('fieldset.topic')) {
    const all = set.querySelector('input.topic-all');
    const items = [...set.querySelectorAll('input[name=dataItems]')];
    const show = () => {
      const n = items.filter((i) => i.checked).length;
      all.checked = n === items.length;
      all.indeterminate = n > 0 && n < items.length;
    };
    all.addEventListener('change', () => {
      for (const i of items) i.checked = all.checked;
      show();
    });
    for (const i of items) i.addEventListener('change', show);
  }
})();
