import AjvDraft04Module, { type ErrorObject } from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { rememberLast } from '../domain/remember-last.ts';

/*
 * Both packages are CommonJS with `exports.default`. Under NodeNext the default import is the
 * whole `module.exports`, so the class sits on `.default`; some loaders already unwrap it.
 * Unwrap once here so no other module has to know.
 */
type AjvCtor = typeof AjvDraft04Module.default;
type AddFormats = typeof addFormatsModule.default;
const Ajv04: AjvCtor = unwrapDefault<AjvCtor>(AjvDraft04Module);
const addFormats: AddFormats = unwrapDefault<AddFormats>(addFormatsModule);

function unwrapDefault<T>(mod: unknown): T {
  const inner = (mod as { default?: unknown }).default;
  return (typeof inner === 'function' ? inner : mod) as T;
}

export type Ajv = InstanceType<AjvCtor>;

/**
 * RFC 3339 section 5.6 `date-time` as written: upper-case `T` and `Z`, seconds, an offset as
 * ±hh:mm. ajv-formats' own date-time also takes a space or a lower-case `t`/`z` and offsets
 * like `+0100` or `+01` (RFC 3339 allows some of that in prose, not in its grammar); consumers'
 * parsers do not all read those forms, so the catalog promises only this one.
 */
const RFC3339_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;

/**
 * A new Ajv instance for JSON Schema draft-04 with the standard formats, `date-time` narrowed to
 * RFC 3339's grammar (above) for every timestamp of every schema. Strict mode rejects unknown
 * keywords and `required` names that are not in `properties`, so a typo in a catalog file fails
 * at start instead of silently validating nothing. allErrors: a rejected payload reports every
 * problem at once (quarantine reasons and mapping cases are easier to fix that way).
 */
export function createAjv(): Ajv {
  const ajv = new Ajv04({ allErrors: true, strict: true, strictTypes: true, strictRequired: true });
  addFormats(ajv);
  // ajv-formats still checks the calendar (30 February, hour 24, leap seconds); this adds the form.
  const calendar = ajv.formats['date-time'] as { validate: (s: string) => boolean; compare?: (a: string, b: string) => number | undefined };
  ajv.addFormat('date-time', {
    type: 'string',
    // The calendar check was an eighth of harmonizing a telemetry message, once per item.
    validate: rememberLast((s: string) => RFC3339_DATE_TIME.test(s) && calendar.validate(s)),
    ...(calendar.compare ? { compare: calendar.compare } : {}),
  });
  return ajv;
}

/** One Ajv error as one readable line, e.g. `/unit must be equal to one of the allowed values: km, mi`. */
export function formatAjvError(e: ErrorObject): string {
  const path = e.instancePath === '' ? '/' : e.instancePath;
  const params = e.params as Record<string, unknown>;
  let detail = '';
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) detail = `: ${params.allowedValues.join(', ')}`;
  else if (e.keyword === 'additionalProperties') detail = `: ${String(params.additionalProperty)}`;
  return `${path} ${e.message ?? 'is invalid'}${detail}`;
}

export function formatAjvErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(formatAjvError);
}
