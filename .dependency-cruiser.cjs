/*
 * The layers of the code and what may import what (docs/architecture.md draws them).
 * Lowest first; a file imports only from its own layer or below. `npm run deps:check` prints
 * every import that breaks a rule; test/architecture/layers.test.ts fails on any, and on any
 * entry in .dependency-cruiser-known-violations.json, which stays empty.
 */
/** The transport kinds' descriptors (src/transports/kind.ts, kinds.ts, <kind>/kind.ts). */
const TRANSPORT_KIND_FILES = '(kinds?|[^/]+/kind)[.]ts$';
const TRANSPORT_KINDS = `^src/transports/${TRANSPORT_KIND_FILES}`;

/*
 * The domain's bands, lowest first: the manufacturers and their mappings (with the small
 * shared parts: API keys, rate limits, the read model), then the parts that take data and
 * consent in (pipeline, consent, management, provisioning), then those that hand data out or
 * erase it (push, delivery, gdpr, and the mapping tooling that runs the pipeline's step).
 */
const domainBands = [
  // With the transport kinds' descriptors: the manifest registry reads what each kind says of itself.
  { name: 'domain: adapters and mapping', parts: ['mapping', 'adapters', 'auth', 'rate-limit', 'read-model'], also: [TRANSPORT_KINDS] },
  { name: 'domain: pipeline, consent and management', parts: ['pipeline', 'consent', 'management', 'provisioning'] },
  { name: 'domain: push, delivery and gdpr', parts: ['push', 'delivery', 'gdpr', 'mapping-cases'] },
];

/** The imports allowed between two parts of one band, each with its reason. */
const sideways = {
  adapters: { mapping: 'a manifest compiles its mappings when it is loaded' },
  'read-model': { auth: 'the read model authenticates an API key by its hash' },
  gdpr: { push: "an erasure tells the subscriptions that held the VIN through push's notices" },
};

const layers = [
  {
    name: 'leaves',
    paths: ['^src/(config|config-sections|clock|crypto|errors|logger|periodic|running|paths|redact-url)[.]ts$', '^src/(metrics|catalog|domain)/'],
  },
  { name: 'store', paths: ['^src/store/'] },
  { name: 'queues', paths: ['^src/queues/'] },
  // The domain, in sub-layers: each imports only from its own band and those below, and inside
  // a band one part imports another only where `sideways` below allows it.
  ...domainBands.map((band) => ({ name: band.name, paths: [`^src/(${band.parts.join('|')})/`, ...(band.also ?? [])] })),
  { name: 'domain: the services bag', paths: ['^src/services[.]ts$'] },
  { name: 'transports', paths: [`^src/transports/(?!${TRANSPORT_KIND_FILES})`] },
  { name: 'http', paths: ['^src/(http|routes|console)/', '^src/app[.]ts$'] },
  { name: 'virtual wing', paths: ['^src/virtual/', '^simulator/'] },
  { name: 'main', paths: ['^src/main/', '^src/server[.]ts$', '^src/cli/'] },
];

const upward = layers.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.name.replace(/[^a-z0-9]+/gi, '-')}`,
  comment: `The ${layer.name} layer imports only from itself and the layers below it.`,
  severity: 'error',
  from: { path: layer.paths },
  to: { path: layers.slice(i + 1).flatMap((l) => l.paths) },
}));

const sidewaysRules = domainBands.flatMap((band) =>
  band.parts.map((part) => {
    const others = band.parts.filter((p) => p !== part && !(sideways[part] && p in sideways[part]));
    return {
      name: `no-sideways-from-${part}`,
      comment: `Inside "${band.name}", ${part} imports another part only where .dependency-cruiser.cjs (sideways) allows it.`,
      severity: 'error',
      from: { path: `^src/${part}/` },
      to: { path: `^src/(${others.join('|')})/` },
    };
  }),
);

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
    ...sidewaysRules,
    {
      name: 'no-http-framework-below-http',
      comment: 'The domain and everything under it know no HTTP framework: the HTTP layer reads requests and writes answers.',
      severity: 'error',
      from: { path: layers.slice(0, layers.findIndex((l) => l.name === 'transports')).flatMap((l) => l.paths) },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(test|bench|dist|[.]tmp)/|[.]test[.]ts$' },
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
module.exports = config;
