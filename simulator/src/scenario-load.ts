import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scenarioSchema } from './scenario-schema.ts';
import type { ScenarioFile, ValueSpec } from './scenario-types.ts';
import { checkValueSpec } from './value-spec.ts';
import { buildVehicle, type Vehicle } from './vehicle.ts';

/** A scenario file that cannot be used. The message names the file; the start stops. */
export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`Invalid scenario ${file}: ${message}`);
    this.name = 'ScenarioError';
  }
}

// ajv-formats is CommonJS with `exports.default`; unwrap once (see src/catalog/ajv.ts).
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as typeof addFormatsModule.default;
const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, discriminator: true });
addFormats(ajv);
const validate = ajv.compile<ScenarioFile>(scenarioSchema);

const describe = (e: ErrorObject): string => {
  const where = e.instancePath === '' ? '/' : e.instancePath;
  const extra = e.keyword === 'additionalProperties' ? `: ${String((e.params as { additionalProperty: string }).additionalProperty)}` : '';
  return `${where} ${e.message ?? e.keyword}${extra}`;
};

/** Parses and checks one scenario file; throws ScenarioError naming it. */
export function loadScenarioFile(path: string): ScenarioFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ScenarioError(path, `not valid JSON (${(err as Error).message})`);
  }
  if (!validate(data)) {
    // oneOf failures repeat themselves per branch; report each line once.
    const lines = [...new Set((validate.errors ?? []).map(describe))];
    throw new ScenarioError(path, lines.join('; '));
  }
  try {
    for (const [p, spec] of Object.entries(data.signals ?? {})) checkValueSpec(spec as ValueSpec, p);
  } catch (err) {
    throw new ScenarioError(path, (err as Error).message);
  }
  return data;
}

export interface LoadedScenario {
  file: string;
  vehicle: Vehicle;
}

/**
 * Every `*.json` in the scenarios folder, sorted by file name, as ready vehicles. A broken
 * file, or two files with one VIN, stops the load with a message naming the file(s).
 */
export function loadScenarios(dir: string): LoadedScenario[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const byVin = new Map<string, string>();
  const out: LoadedScenario[] = [];
  for (const name of files) {
    const file = join(dir, name);
    const scenario = loadScenarioFile(file);
    const other = byVin.get(scenario.vin);
    if (other) throw new ScenarioError(file, `VIN ${scenario.vin} is already defined by ${other}`);
    byVin.set(scenario.vin, file);
    let vehicle: Vehicle;
    try {
      vehicle = buildVehicle(scenario);
    } catch (err) {
      throw new ScenarioError(file, (err as Error).message);
    }
    out.push({ file, vehicle });
  }
  return out;
}
