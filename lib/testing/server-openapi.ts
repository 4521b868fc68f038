import { describeValue } from './describe-value.ts';

/** The parts of a schema the check reads: properties, directly or through `allOf`. */
interface Schema {
  readonly properties?: Record<string, { type?: unknown; format?: unknown } | undefined>;
  readonly allOf?: readonly Schema[];
}

/** The parts of an OpenAPI document the check reads. */
interface OpenApiDocument {
  readonly openapi?: unknown;
  readonly paths?: Record<string, Record<string, unknown> | undefined>;
  readonly components?: {
    readonly schemas?: Record<string, Schema | undefined>;
    readonly securitySchemes?: Record<string, { type?: unknown; scheme?: unknown } | undefined>;
  };
}

/**
 * What a served OpenAPI document lacks of the basics any client generator needs, as phrases; the
 * text they quote from it passes through `hide`.
 */
export function openApiProblems(value: unknown, hide: (text: string) => string): string[] {
  if (value === undefined || value === null || typeof value !== 'object') {
    return ['is not a JSON object'];
  }
  const document = value as OpenApiDocument;
  const problems: string[] = [];
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1.')) {
    problems.push(`says openapi ${describeValue(document.openapi, hide)}, not 3.1.x`);
  }
  if (document.paths?.['/plants']?.post === undefined) problems.push('has no POST /plants');
  const newPlant = document.components?.schemas?.NewPlant;
  const id = [newPlant, ...(newPlant?.allOf ?? [])].find((schema) => schema?.properties?.id)
    ?.properties?.id;
  if (id?.type !== 'integer' || id.format !== 'int64')
    problems.push('has no NewPlant with an int64 integer id');
  for (const schema of ['Plant', 'Error']) {
    if (document.components?.schemas?.[schema] === undefined)
      problems.push(`has no ${schema} schema`);
  }
  const schemes = Object.values(document.components?.securitySchemes ?? {});
  if (!schemes.some((s) => s?.type === 'http' && String(s.scheme).toLowerCase() === 'bearer')) {
    problems.push('has no http bearer security scheme');
  }
  return problems;
}
