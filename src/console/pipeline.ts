import { html } from '../consent/pages/html.ts';
import type { ConsolePlugin } from './context.ts';
import { sendPage } from './page.ts';
import { readPipelineSeries } from './series.ts';

/** The pipeline view: the last hour's per-minute samples as uPlot charts, refreshed every 5 seconds. */
export const pipelineView: ConsolePlugin = async (app, { ctx }) => {
  app.get('/console/pipeline', async (request, reply) => {
    const body = html`<p class="muted">The service's own counters, sampled into Redis by every process (docs/console.md), so every API process shows the same picture. The last minute is still filling.</p>
<div class="grid-charts" id="charts" data-src="/console/pipeline/series.json"></div>`;
    return sendPage(reply, {
      view: 'pipeline',
      title: 'Pipeline',
      csrf: request.consoleSession!.csrf,
      body,
      scripts: ['console.js', 'uplot.js', 'pipeline.js'],
      styles: ['uplot.css'],
    });
  });

  app.get('/console/pipeline/series.json', async (_request, reply) => reply.header('cache-control', 'no-store').send(await readPipelineSeries(ctx)));
};
