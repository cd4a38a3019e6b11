// The reprocess outcome page: reloads itself while messages are still waiting for the pipeline.
'use strict';
(() => {
  const summary = document.getElementById('summary');
  if (summary && Number(summary.dataset.waiting) > 0) setTimeout(() => location.reload(), 1500);
})();
