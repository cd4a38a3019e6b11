import { fixture, fixtureName } from './mapping.ts';
import { manifest } from './manifest.ts';
import type { ScaffoldPlan } from './plan.ts';

/** How the raw messages arrive, as the README tells the manufacturer (and the next engineer). */
function transportSection(p: ScaffoldPlan): string {
  const t = manifest(p).transport as Record<string, string>;
  const secret = `npm run -s cli -- adapters secret ${p.id}`;
  switch (p.transport) {
    case 'mqtt':
      return `- Transport: MQTT at the embedded broker, topic \`${p.id}/v1/<VIN>/${p.messageType}\`, username
  \`${p.id}\`; the password is \`${t.passwordEnv}\`, derived from \`SECRET_KEY\` when unset
  (\`${secret}\` prints it to hand over).`;
    case 'http':
      return `- Transport: batches POSTed to \`/ingest/v1/${p.id}\` as \`{"records": [<record>, ...]}\`, each
  record's \`type\` its message type, signed in the \`${t.signatureHeader}\` header
  (\`t=<epoch s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>\`, as
  [adapters/borealis/README.md](../borealis/README.md) shows); the secret is \`${t.secretEnv}\`,
  derived from \`SECRET_KEY\` when unset (\`${secret}\` prints it).`;
    case 'poll':
      return `- Transport: polled. The service fetches \`${t.apiBaseUrl}${t.pagePath}\` for every activated
  vehicle with a client-credentials token from \`${t.tokenEndpoint}\` (client \`${t.clientId}\`,
  secret \`${t.secretEnv}\`, derived from \`SECRET_KEY\` when unset: \`${secret}\`). These paths
  are the simulated API of this service; put the manufacturer's https URLs there, and its
  secret in \`${t.secretEnv}\`, once it has given them. Each page of signals is one raw message.`;
  }
}

function rawFormat(p: ScaffoldPlan): string {
  if (p.transport === 'poll') {
    return `A page of signals (Vehicle Signal Specification paths), each with its own time:

| path | unit | harmonized to |
|---|---|---|
| \`Vehicle.TraveledDistance\` | \`km\` (or \`mi\`, \`m\`) | \`mileage\` in whole km |

Other paths are ignored (the fixture's \`Vehicle.Speed\` is not mapped yet).`;
  }
  return `One message per vehicle and instant:

| field | unit | harmonized to |
|---|---|---|
| \`vin\` | | the VIN |
| \`sampledAt\` | ISO 8601 with zone, or epoch s/ms | every item's \`timestamp\` |
| \`odometer.value\`, \`odometer.unit\` | \`km\` (or \`mi\`, \`m\`) | \`mileage\` in whole km |`;
}

/**
 * Text shown as itself in Markdown, inside a line: every character that could start a link or
 * image, HTML, an entity, code, emphasis or a table cell escaped. (Line breaks are refused before.)
 */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>!|~&]/g, '\\$&');
}

/** adapters/<id>/README.md: what a new reader needs, and what is left to do. */
export function readme(plan: ScaffoldPlan): string {
  // The display name is the operator's text: shown as text, never as Markdown.
  const p = { ...plan, name: markdownText(plan.name) };
  return `# ${p.name} (\`${p.id}\`)

Scaffolded by \`npm run cli -- manufacturers new ${p.id} --transport ${p.transport}\`. Replace what
is made up here (marked ✎) with what ${p.name} really sends.

- VIN prefix: \`${p.vinPrefix}\` ✎ (e.g. \`${p.exampleVin}\`).
${transportSection(p)}
- Authorization server (consent): the simulated one this service hosts at \`/oem/${p.id}\` ✎,
  until ${p.name}'s own is configured in \`manifest.json\` (\`authorization\`; its client secret
  then in a variable named by \`clientSecretEnv\`).
- Activation: \`auto\`.

## Raw format, version 1: \`${p.messageType}\` ✎

\`\`\`json
${JSON.stringify(fixture(p), null, 2)}
\`\`\`

${rawFormat(p)}

## Next steps

1. Put a real raw message in \`fixtures/${fixtureName(p)}\` (more: \`${p.id}.${p.messageType}.<case>.json\`).
2. Map each catalog item it carries in \`mappings/${p.id}/${p.messageType}.jsonata\` and list it in
   \`manifest.json\` \`items\`; prove it with a case in \`mappings/${p.id}/cases/\`.
3. \`npm run mappings:test -- --manufacturer ${p.id} --watch\` re-runs the cases on every save;
   \`npm run mappings:coverage\` shows which items still lack a case.

## Files

- \`manifest.json\`: what ${p.name} is (VIN prefix, transport, items, message types, OAuth server).
- \`fixtures/${p.id}.<message-type>[.<case>].json\`: real raw messages; each must map to
  catalog-valid items (\`test/adapters/fixtures.test.ts\`).
- \`mappings/${p.id}/*.jsonata\` and \`mappings/${p.id}/cases/*.json\`: the mapping and its cases.
`;
}
