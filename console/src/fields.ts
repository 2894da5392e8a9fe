/**
 * Form fields from the admin API's own JSON schemas (read from `/v1/openapi.json`), so the console
 * checks a form with the same rules the API applies (required, type, integer, minimum/maximum,
 * minLength/maxLength, pattern, enum) and picks up fields the API gains without a console change.
 * Rules that need the exchange's context (URL schemes, SSRF, adapter codes) come back from the
 * API as problem+json and are shown next to the field the same way. Pure: no DOM here.
 */
/** The subset of JSON Schema (as fastify/TypeBox emit it) the console understands. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  pattern?: string;
  format?: string;
  nullable?: boolean;
  description?: string;
}


/** How a property is edited. */
export type FieldKind = 'text' | 'number' | 'checkbox' | 'select' | 'checkboxes' | 'list';

/** One form field derived from a schema property. */
export interface FieldSpec {
  name: string;
  label: string;
  kind: FieldKind;
  schema: JsonSchema;
  required: boolean;
  nullable: boolean;
  /** Choices of `select` and `checkboxes`, as strings (and the JSON value each stands for). */
  options: Array<{ label: string; value: unknown }>;
  hint?: string;
}

/** What a control holds: text for inputs and selects, a boolean for a checkbox, chosen strings for checkboxes. */
export type RawValue = string | boolean | string[];

/** Words kept as written in labels. */
const WORDS: Record<string, string> = { ms: '(ms)', id: 'ID', url: 'URL', api: 'API', qps: 'QPS', gzip: 'Gzip', openrtb: 'OpenRTB', gvl: 'GVL' };

/** `timeout_ms` -> `Timeout (ms)`, `publisher_id` -> `Publisher ID`. */
export function labelOf(name: string): string {
  const words = name.split('_').map((w) => WORDS[w] ?? w);
  const first = words[0] ?? name;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

function constChoices(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0 && schema.anyOf.every((s) => 'const' in s || Array.isArray(s.enum))) {
    return schema.anyOf.flatMap((s) => ('const' in s ? [s.const] : (s.enum ?? [])));
  }
  return undefined;
}

/** The fields of an object schema, in `order` first, without `omit`. */
export function fieldsOf(schema: JsonSchema | undefined, options: { order?: string[]; omit?: string[]; labels?: Record<string, string>; requireAll?: boolean } = {}): FieldSpec[] {
  const properties = schema?.properties ?? {};
  const names = Object.keys(properties).filter((n) => !(options.omit ?? []).includes(n));
  const order = options.order ?? [];
  names.sort((a, b) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib);
  });
  return names.map((name) => {
    const prop = properties[name] as JsonSchema;
    const choices = constChoices(prop);
    const itemChoices = prop.type === 'array' && prop.items ? constChoices(prop.items) : undefined;
    let kind: FieldKind = 'text';
    if (choices) kind = 'select';
    else if (prop.type === 'boolean') kind = 'checkbox';
    else if (prop.type === 'integer' || prop.type === 'number') kind = 'number';
    else if (prop.type === 'array') kind = itemChoices ? 'checkboxes' : 'list';
    const list = choices ?? itemChoices ?? [];
    return {
      name,
      label: options.labels?.[name] ?? labelOf(name),
      kind,
      schema: prop,
      required: (schema?.required ?? []).includes(name),
      nullable: prop.nullable === true,
      options: list.map((value) => ({ label: String(value), value })),
      hint: prop.description,
    };
  });
}

/** The control's value for a JSON value (an existing resource's field, or a default). */
export function rawOf(field: FieldSpec, value: unknown): RawValue {
  switch (field.kind) {
    case 'checkbox':
      return value === true;
    case 'checkboxes':
      return Array.isArray(value) ? value.map(String) : [];
    case 'list':
      return Array.isArray(value) ? value.join(', ') : '';
    default:
      return value === null || value === undefined ? '' : String(value);
  }
}

/** Checks a string against the schema's string rules; answers the problem or undefined. */
function checkString(schema: JsonSchema, text: string): string | undefined {
  if (schema.minLength !== undefined && text.length < schema.minLength) return schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`;
  if (schema.maxLength !== undefined && text.length > schema.maxLength) return `must be at most ${schema.maxLength} characters`;
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(text)) return `must match the pattern ${schema.pattern}`;
  return undefined;
}

/** Checks a number against the schema's numeric rules. */
function checkNumber(schema: JsonSchema, n: number): string | undefined {
  if (schema.type === 'integer' && !Number.isInteger(n)) return 'must be a whole number';
  if (schema.minimum !== undefined && n < schema.minimum) return `must be ${schema.minimum} or more`;
  if (schema.exclusiveMinimum !== undefined && n <= schema.exclusiveMinimum) return `must be more than ${schema.exclusiveMinimum}`;
  if (schema.maximum !== undefined && n > schema.maximum) return `must be ${schema.maximum} or less`;
  return undefined;
}

/** A field's JSON value from its control, or the rule it breaks. `skip` = leave the field out of the body. */
export function readField(field: FieldSpec, raw: RawValue): { value?: unknown; skip?: true; error?: string } {
  const { schema } = field;
  switch (field.kind) {
    case 'checkbox':
      return { value: raw === true };
    case 'checkboxes': {
      const chosen = Array.isArray(raw) ? raw : [];
      return { value: field.options.filter((o) => chosen.includes(String(o.value))).map((o) => o.value) };
    }
    case 'list': {
      const items = String(raw)
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter((s) => s !== '');
      for (const item of items) {
        const problem = schema.items ? checkString(schema.items, item) : undefined;
        if (problem) return { error: `${item}: ${problem}` };
      }
      return { value: items };
    }
    default:
      break;
  }
  const text = String(raw).trim();
  if (text === '') {
    if (field.required) return { error: 'is required' };
    return field.nullable ? { value: null } : { skip: true };
  }
  if (field.kind === 'select') {
    const option = field.options.find((o) => String(o.value) === text);
    return option ? { value: option.value } : { error: `must be one of ${field.options.map((o) => o.label).join(', ')}` };
  }
  if (field.kind === 'number') {
    const n = Number(text);
    if (!Number.isFinite(n)) return { error: 'must be a number' };
    const problem = checkNumber(schema, n);
    return problem ? { error: problem } : { value: n };
  }
  const problem = checkString(schema, text);
  return problem ? { error: problem } : { value: text };
}

/**
 * The request body of a form, or the errors by field name. With `changedOnly` (edits), only
 * fields whose control differs from `initial` are sent; a create sends every filled field and the
 * checkboxes the operator changed, so the API's own defaults apply to the rest.
 */
export function buildBody(
  fields: FieldSpec[],
  raw: Record<string, RawValue>,
  initial: Record<string, RawValue>,
  options: { changedOnly?: boolean } = {},
): { body: Record<string, unknown>; errors: Record<string, string> } {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const current = raw[field.name] ?? rawOf(field, undefined);
    const before = initial[field.name] ?? rawOf(field, undefined);
    const changed = JSON.stringify(current) !== JSON.stringify(before);
    if ((options.changedOnly || field.kind === 'checkbox' || field.kind === 'checkboxes') && !changed && !field.required) continue;
    const read = readField(field, current);
    if (read.error) errors[field.name] = read.error;
    else if (!read.skip) body[field.name] = read.value;
  }
  return { body, errors };
}
