/*
 * The layers of the code and what may import what (docs/architecture.md draws them).
 * Lowest first; a file imports only from its own layer or below. `npm run deps:check` prints
 * every import that breaks a rule; test/architecture/layers.test.ts fails on any that is not
 * in .dependency-cruiser-known-violations.json (the few accepted ones, each with its reason
 * in docs/architecture.md).
 */
/** The transport kinds' descriptors (src/transports/kind.ts, kinds.ts, <kind>/kind.ts). */
const TRANSPORT_KIND_FILES = '(kinds?|[^/]+/kind)[.]ts$';
const TRANSPORT_KINDS = `^src/transports/${TRANSPORT_KIND_FILES}`;

const layers = [
  {
    name: 'leaves',
    paths: ['^src/(config|clock|crypto|errors|logger|periodic|running|paths|redact-url)[.]ts$', '^src/(metrics|catalog|domain)/'],
  },
  { name: 'store', paths: ['^src/store/'] },
  { name: 'queues', paths: ['^src/queues/'] },
  {
    name: 'domain',
    paths: [
      '^src/services[.]ts$',
      '^src/(adapters|mapping|mapping-cases|pipeline|consent|management|delivery|push|gdpr|provisioning|read-model|rate-limit|auth)/',
      // What each transport kind says about itself, read by the manifest registry and the pipeline.
      TRANSPORT_KINDS,
    ],
  },
  { name: 'transports', paths: [`^src/transports/(?!${TRANSPORT_KIND_FILES})`] },
  { name: 'http', paths: ['^src/(http|routes|console)/', '^src/app[.]ts$'] },
  { name: 'virtual wing', paths: ['^src/virtual/', '^simulator/'] },
  { name: 'main', paths: ['^src/main/', '^src/server[.]ts$', '^src/cli/'] },
];

const upward = layers.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.name.replace(/ /g, '-')}`,
  comment: `The ${layer.name} layer imports only from itself and the layers below it.`,
  severity: 'error',
  from: { path: layer.paths },
  to: { path: layers.slice(i + 1).flatMap((l) => l.paths) },
}));

const config = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles make start-up order and responsibilities unclear.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'every-file-in-a-layer',
      comment: 'Every source file belongs to a layer (add its folder to .dependency-cruiser.cjs and docs/architecture.md).',
      severity: 'error',
      from: { path: '^(src|simulator/src)/', pathNot: layers.flatMap((l) => l.paths) },
      to: { path: '^(src|simulator/src)/' },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(test|bench|dist|[.]tmp)/|[.]test[.]ts$' },
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
module.exports = config;
