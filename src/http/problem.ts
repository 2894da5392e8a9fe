/**
 * The HTTP edge's error mapping: every error becomes an RFC 9457 `application/problem+json`
 * answer from the catalog (domain/errors.ts). Fastify schema validation errors become 400 with
 * the invalid fields named; a stack trace never reaches a client (DESIGN section 8).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdxError, problemBody, type ErrorCode, type FieldError } from '../domain/errors.js';

/** Content type of problem bodies (RFC 9457 section 3). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** Sends a problem+json answer for `code`. */
export function sendProblem(
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  extra: { errors?: FieldError[]; nbr?: number; headers?: Record<string, string> } = {},
): FastifyReply {
  const body = problemBody(code, detail, extra);
  if (extra.headers) reply.headers(extra.headers);
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** Converts an ajv instance path (`/imp/0/banner`) to the dotted field form (`imp[0].banner`). */
export function instancePathToField(path: string, missingProperty?: string): string {
  const parts = path.split('/').filter((p) => p !== '');
  if (missingProperty) parts.push(missingProperty);
  let field = '';
  for (const raw of parts) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    field += /^\d+$/.test(part) ? `[${part}]` : field === '' ? part : `.${part}`;
  }
  return field === '' ? 'body' : field;
}

/** Maps fastify's own errors (schema, body size, content type, JSON syntax) to catalog codes. */
function mapFastifyError(error: FastifyError): { code: ErrorCode; detail: string; errors?: FieldError[] } {
  if (error.validation) {
    const errors = error.validation.map((v) => ({
      field: instancePathToField(v.instancePath, (v.params as { missingProperty?: string } | undefined)?.missingProperty),
      message: v.message ?? 'is invalid',
    }));
    return { code: 'invalid_request', detail: errors.map((e) => `${e.field} ${e.message}`).join('; '), errors };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'payload_too_large', detail: 'the request body is larger than the limit' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 'unsupported_media_type', detail: error.message };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { code: 'invalid_request', detail: 'the body is not valid JSON', errors: [{ field: 'body', message: 'is not valid JSON' }] };
    default:
      break;
  }
  if (error instanceof SyntaxError) {
    return { code: 'invalid_request', detail: 'the body is not valid JSON', errors: [{ field: 'body', message: 'is not valid JSON' }] };
  }
  if (error.statusCode === 413) return { code: 'payload_too_large', detail: 'the request body is larger than the limit' };
  if (error.statusCode === 415) return { code: 'unsupported_media_type', detail: error.message };
  if (error.statusCode === 404) return { code: 'not_found', detail: error.message };
  if (error.statusCode === 405) return { code: 'method_not_allowed', detail: error.message };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { code: 'invalid_request', detail: error.message };
  }
  return { code: 'internal', detail: 'an internal error occurred' };
}

/** Installs the error and not-found handlers on `app`. */
export function installProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AdxError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AdxError) {
      return sendProblem(reply, error.code, error.message, { errors: error.errors, headers: error.headers });
    }
    const mapped = mapFastifyError(error);
    if (mapped.code === 'internal') request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, mapped.code, mapped.detail, { errors: mapped.errors });
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`));
}
