import { html } from '../http/pages/html.ts';
import { singleValues } from '../http/single-value.ts';
import type { ConsolePlugin } from './context.ts';
import { sendPage } from './page.ts';
import { rangePicker } from './range-picker.ts';
import { readPipelineSeries } from './series.ts';
import { rangeOf } from './vehicle-data.ts';

/** The pipeline view: the chosen range's samples (1 h to 7 d) as uPlot charts, refreshed every 5 seconds. */
export const pipelineView: ConsolePlugin = async (app, { ctx }) => {
  app.get('/console/pipeline', async (request, reply) => {
    const range = rangeOf(singleValues(request.query, ['range']).range, '1h');
    const body = html`<p class="muted">The service's own counters, sampled into Redis by every process (docs/console.md), so every API process shows the same picture. The last bucket is still filling.</p>
${rangePicker('/console/pipeline', range)}
<div class="grid-charts" id="charts" data-src="/console/pipeline/series.json?range=${range}"></div>`;
    return sendPage(reply, {
      view: 'pipeline',
      title: 'Pipeline',
      csrf: request.consoleSession!.csrf,
      body,
      scripts: ['uplot.js', 'charts.js', 'pipeline.js'],
      styles: ['uplot.css'],
    });
  });

  app.get('/console/pipeline/series.json', async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await readPipelineSeries(ctx, rangeOf(singleValues(request.query, ['range']).range, '1h'))),
  );
};
