/**
 * Every error mcpscope raises for a person or an API caller to read, in one place: its code, the
 * HTTP status the UI API answers it with (proxy/app/serve/error-handler.ts, the one fastify error
 * handler), and the words of the ones said in more than one place.
 *
 * A code names what went wrong, not where: a route throws `new McpscopeError('NO_SESSION', …)` and
 * the handler answers `404 { error, code }`; the CLI prints the message and exits with `exit`. The
 * named subclasses are the errors callers tell apart by class (a fixture that will not load, a
 * command line that is wrong); each has exactly one code.
 *
 * Browser-safe (proxy/core): no Node builtins. Not @fastify/error: its messages are printf
 * templates formatted with node:util (untyped arguments, Node-only); these are typed functions.
 */

export interface ErrorInfo {
  /** The HTTP status the UI API answers with. */
  status: number;
  /** What the code means, for docs/architecture.md's table and for a reader of `code`. */
  means: string;
}

export const ERRORS = {
  // A lookup that found nothing: 404.
  NO_SESSION: { status: 404, means: 'No session of that id in this capture.' },
  NO_MESSAGE: { status: 404, means: 'No message of that seq.' },
  NO_EXCHANGE: { status: 404, means: 'No HTTP exchange of that id.' },
  NO_CALL: { status: 404, means: 'No call (message seq or exchange id) of that reference, or one with no JSON-RPC message.' },
  NO_MODEL_TURN: { status: 404, means: 'No model turn of that id.' },
  NO_RULE: { status: 404, means: 'No fault or breakpoint rule of that id.' },
  NO_HELD: { status: 404, means: 'No message held at a breakpoint under that id.' },
  // Input the caller can mend: 400.
  BAD_QUERY: { status: 400, means: 'A search or list query parameter is malformed.' },
  BAD_CALL_REF: { status: 400, means: 'A call reference is neither a message seq nor an exchange id.' },
  BAD_EXPORT_FORMAT: { status: 400, means: 'An export format mcpscope does not write (or not for this scope).' },
  BAD_RULE: { status: 400, means: 'A fault or breakpoint rule that does not validate.' },
  BAD_SEND: {
    status: 400,
    means: 'A message to send that is not a JSON-RPC request or notification, or a session mcpscope cannot send into.',
  },
  BAD_ACTION: { status: 400, means: 'An action on a held message that is not resume, drop or respond with a valid JSON-RPC message.' },
  BAD_CAPTURE: { status: 400, means: 'A file that is not a capture mcpscope can open (fixture, NDJSON, HAR).' },
  BAD_FIXTURE: { status: 400, means: 'A fixture that replay or verify cannot use.' },
  BAD_CLIENT_CONFIG: { status: 400, means: "A client's MCP config file mcpscope cannot read or edit." },
  BAD_OTLP_OPTIONS: { status: 400, means: 'An OpenTelemetry export configuration that cannot work.' },
  USAGE: { status: 400, means: 'A command line that is not right (the CLI exits 2).' },
  // A session mcpscope has no way to send into (a stdio session with no stdio sender): 501.
  CANNOT_SEND: {
    status: 501,
    means: 'This mcpscope cannot send into that kind of session (a stdio session with no stdio sender connected).',
  },
  // mcpscope's own failure: 500.
  EXPORT_FAILED: { status: 500, means: 'Building an export failed; the recording is unchanged.' },
  INTERNAL: { status: 500, means: 'A fault of mcpscope itself; the message says what it was doing.' },
  // A peer did not answer as it should: 502 unless the error says otherwise.
  SEND_FAILED: { status: 502, means: 'A message sent into a session got no answer (its status says why: 400, 409, 502, 504).' },
  UNREACHABLE: { status: 502, means: 'The live server to verify against could not be reached, or the connection broke.' },
  UI_API: { status: 502, means: "`mcpscope mcp` could not use a running mcpscope's UI API (its status, when it answered)." },
} as const satisfies Record<string, ErrorInfo>;

export type ErrorCode = keyof typeof ERRORS;

/** An error with a code from ERRORS; `status` is the code's unless the thrower knew better. */
export class McpscopeError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status ?? ERRORS[code].status;
  }

  /** fastify reads `statusCode` off a thrown error; the handler uses `status` (the same number). */
  get statusCode(): number {
    return this.status;
  }
}

/** Words said in more than one place. */
export const SAY = {
  noSession: (id: string) => `No session ${id}`,
  noRule: (noun: string, id: string) => `No ${noun} ${id}`,
  noHeld: (id: string) => `No held message ${id} (it may have been released already: GET /api/paused lists those held now)`,
};

// --- The errors told apart by class -----------------------------------------------------------

/** A command line that is not right, in words for the person who typed it. `hint`: the help is worth a look. */
export class UsageError extends McpscopeError {
  constructor(
    message: string,
    readonly hint = false,
  ) {
    super('USAGE', message);
  }
}

/** An export or view asked for a session the store does not hold. */
export class UnknownSessionError extends McpscopeError {
  constructor(readonly sessionId: string) {
    super('NO_SESSION', SAY.noSession(sessionId));
  }
}

/** The input is not a capture mcpscope can read. The message says why, in plain words. */
export class CaptureFormatError extends McpscopeError {
  constructor(message: string) {
    super('BAD_CAPTURE', message);
  }
}

/** A fixture replay or verify cannot use; the message names the problem. */
export class FixtureError extends McpscopeError {
  constructor(message: string) {
    super('BAD_FIXTURE', message);
    this.name = 'FixtureError';
  }
}

/** The live server could not be reached, or the connection broke: not a verdict about its answers. */
export class VerifyConnectionError extends McpscopeError {
  constructor(message: string) {
    super('UNREACHABLE', message);
    this.name = 'VerifyConnectionError';
  }
}

/** A config the client-config helper cannot work with; the message is for the user, in plain words. */
export class ClientConfigError extends McpscopeError {
  constructor(message: string) {
    super('BAD_CLIENT_CONFIG', message);
    this.name = 'ClientConfigError';
  }
}

/** An OTLP configuration that cannot work: the CLI prints it and exits 2. */
export class OtlpOptionsError extends McpscopeError {
  constructor(message: string) {
    super('BAD_OTLP_OPTIONS', message);
  }
}

/** A send into a stdio session that did not get an answer: `status` is what the API answers with. */
export class StdioSendError extends McpscopeError {
  constructor(message: string, status: number) {
    super('SEND_FAILED', message, { status });
  }
}

/** `mcpscope mcp` could not use the UI API; `answered` is the UI's HTTP status, when it answered. */
export class UiApiError extends McpscopeError {
  constructor(
    message: string,
    readonly answered?: number,
  ) {
    super('UI_API', message, answered === undefined ? {} : { status: answered });
  }
}
