import type { FastifyPluginAsync } from 'fastify';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { projectRoot } from '../paths.ts';

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };

/**
 * The console's own files (src/console/assets, browser scripts and CSS that tsc does not
 * compile: found from the project root, so the compiled build in dist/ serves them too), and
 * the front-end dependencies' builds from node_modules: uPlot (charts), Leaflet and
 * Leaflet.markercluster (the map).
 */
function assetFiles(): Map<string, string> {
  const own = join(projectRoot(), 'src', 'console', 'assets');
  const require = createRequire(import.meta.url);
  const uplot = dirname(require.resolve('uplot'));
  const files = new Map<string, string>();
  for (const name of ['console.css', 'console.js', 'charts.js', 'fleet.js', 'pipeline.js', 'quarantine.js', 'playground.js', 'vehicle.js', 'consumers.js']) files.set(name, join(own, name));
  files.set('uplot.js', join(uplot, 'uPlot.iife.min.js'));
  files.set('uplot.css', join(uplot, 'uPlot.min.css'));
  // The map: Leaflet (BSD-2-Clause) and its marker clustering (MIT), no tiles.
  const leaflet = dirname(require.resolve('leaflet'));
  const clusters = dirname(require.resolve('leaflet.markercluster'));
  files.set('leaflet.js', join(leaflet, 'leaflet.js'));
  files.set('leaflet.css', join(leaflet, 'leaflet.css'));
  files.set('markercluster.js', join(clusters, 'leaflet.markercluster.js'));
  files.set('markercluster.css', join(clusters, 'MarkerCluster.css'));
  files.set('markercluster-default.css', join(clusters, 'MarkerCluster.Default.css'));
  return files;
}

/**
 * GET /console/assets/:name — read once at start and served from memory, with no session
 * needed (nothing secret in them). Same origin, so the console's CSP `'self'` covers them; no CDN.
 */
export const assetsView: FastifyPluginAsync = async (app) => {
  const assets = new Map([...assetFiles()].map(([name, file]) => [name, readFileSync(file)]));
  app.get<{ Params: { name: string } }>('/console/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const body = assets.get(request.params.name);
    if (!body) return reply.code(404).send({ message: 'No such asset.' });
    const type = TYPES[request.params.name.split('.').pop() ?? ''] ?? 'application/octet-stream';
    return reply.header('content-type', type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(body);
  });
};
