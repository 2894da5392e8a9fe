/**
 * The error catalog: every error the HTTP edge can answer, with a stable code, HTTP status and
 * title. Bodies are RFC 9457 `application/problem+json` (DESIGN section 8); `type` is
 * `https://adx.dev/problems/<code>` so clients can switch on it. `docs/errors.md` lists the same
 * catalog (a test keeps them in step).
 */
export const ErrorCatalog = {
  invalid_request: { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Missing or unknown API key' },
  forbidden: { status: 403, title: 'Forbidden' },
  forged_token: { status: 403, title: 'Notice token is forged or altered' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  expired_token: { status: 410, title: 'Notice token has expired' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported content type or encoding' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  not_ready: { status: 503, title: 'Not ready' },
} as const satisfies Record<string, { status: number; title: string }>;

/** A stable error code from the catalog. */
export type ErrorCode = keyof typeof ErrorCatalog;

/** One invalid field: `field` is a dotted path into the request (`imp[0].banner.w`). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * An error meant for the client. Throw it anywhere behind the HTTP edge; the edge maps it to
 * problem+json with the catalog's status and title. `errors` lists invalid fields (400);
 * `nbr` is the OpenRTB no-bid reason the bid endpoint adds (5.24); `headers` are extra response
 * headers (e.g. `Retry-After` on 429).
 */
export class AdxError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = 'AdxError';
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers;
  }

  /** HTTP status from the catalog. */
  get status(): number {
    return ErrorCatalog[this.code].status;
  }
}

/** RFC 9457 problem details body as the exchange sends it. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  nbr?: number;
}

/** Builds the problem+json body for `code` (RFC 9457 section 3). */
export function problemBody(code: ErrorCode, detail: string, extra: { errors?: FieldError[]; nbr?: number } = {}): ProblemBody {
  const entry = ErrorCatalog[code];
  const body: ProblemBody = { type: `https://adx.dev/problems/${code}`, title: entry.title, status: entry.status, detail };
  if (extra.errors) body.errors = extra.errors;
  if (extra.nbr !== undefined) body.nbr = extra.nbr;
  return body;
}
