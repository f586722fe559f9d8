/**
 * The CLI's JSON report contract, schema/cli/report.schema.json, compiled with the repository's
 * validator (Ajv), as written and closed: the closed form gives every object the schema
 * describes by its properties `additionalProperties: false`, so a field the report writes that the
 * schema does not describe fails a test. The contract itself stays open (fields may be added).
 */
import Ajv, { ValidateFunction } from 'ajv';
import { readFileSync } from 'fs';
import { join } from 'path';

export const REPORT_SCHEMA: unknown = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'schema', 'cli', 'report.schema.json'), 'utf8')
);

/** `schema` with `additionalProperties: false` on every object schema that lists properties. */
export function closedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    return schema.map(closedSchema);
  }
  if (schema === null || typeof schema !== 'object') {
    return schema;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, s]) => [name, closedSchema(s)]))
        : closedSchema(value);
  }
  if (out.type === 'object' && 'properties' in out) {
    out.additionalProperties = false;
  }
  return out;
}

const ajv = new Ajv({ allErrors: true });
export const validateReport: ValidateFunction = ajv.compile(REPORT_SCHEMA as object);
export const validateReportClosed: ValidateFunction = ajv.compile({
  ...(closedSchema(REPORT_SCHEMA) as object),
  $id: 'closed-report'
});

/** Throws, naming every violation, unless `report` satisfies the schema and describes only its fields. */
export function assertValidReport(report: unknown): void {
  if (!validateReport(report)) {
    throw new Error(`report violates the schema: ${JSON.stringify(validateReport.errors)}`);
  }
  if (!validateReportClosed(report)) {
    throw new Error(`report has fields the schema does not describe: ${JSON.stringify(validateReportClosed.errors)}`);
  }
}
