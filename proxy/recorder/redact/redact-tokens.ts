/**
 * Known credential formats in free text (GitHub, AWS, Slack, OpenAI, Anthropic, npm, GitLab,
 * SendGrid, Shopify, Hugging Face, HashiCorp Vault, private key blocks, database URLs, …), found
 * by secretlint's recommended rules (`@secretlint/secretlint-rule-preset-recommend`, MIT), driven
 * synchronously through their public rule-creator interface: each rule's `create(context)` gives a
 * `file(source)` handler that reports ranges through `context.report`. The recorder is synchronous
 * and @secretlint/core's `lintSource` is async; the handlers of these text rules are not.
 *
 * A few formats the preset does not look for in plain text are added here (SUPPLEMENTS): Google API
 * keys, JWTs, and a private key block of any kind even when cut short (a 4 KB prefix).
 *
 * Cost: the rules run only on text that could hold one of these (mayHoldToken): a run of 20+
 * characters of [A-Za-z0-9_+=-] that is not just hex and dashes (UUIDs, hashes and ids are), or a
 * trigger (a `-----BEGIN`, a URL with userinfo, …). Paths and method names (`notifications/progress`)
 * are not runs: `/` and `.` end one.
 */
import { rules } from '@secretlint/secretlint-rule-preset-recommend';

interface Range {
  0: number;
  1: number;
}
interface RuleContext {
  report(d: { range: Range }): void;
  ignore(): void;
  createTranslator(): (id: string, data?: unknown) => { message: string; data?: unknown };
}
interface RuleCreator {
  meta: { id: string };
  create(context: RuleContext, options: Record<string, unknown>): { file?: (source: unknown) => unknown };
}

export const REDACTED = '[redacted]';

const found: [number, number][] = [];
const context: RuleContext = {
  report: (d) => void found.push([d.range[0], d.range[1]]),
  ignore: () => undefined,
  createTranslator: () => (id, data) => ({ message: id, data }),
};

/** Options per rule: AWS access key ids (`AKIA…`) are off by default in secretlint (they identify, a secret key goes with them); here they go too. */
const OPTIONS: Record<string, Record<string, unknown>> = { '@secretlint/secretlint-rule-aws': { enableIDScanRule: true } };
/** Not scanners of text: comment directives; GCP's looks at .json/.p12 files only. */
const SKIPPED = new Set(['@secretlint/secretlint-rule-filter-comments', '@secretlint/secretlint-rule-gcp']);

const handlers: ((source: unknown) => unknown)[] = [];
for (const rule of rules as unknown as RuleCreator[]) {
  if (SKIPPED.has(rule.meta.id)) continue;
  const h = rule.create(context, OPTIONS[rule.meta.id] ?? {});
  if (h.file) handlers.push(h.file.bind(h));
}

/** Formats the preset does not look for in plain text. */
const SUPPLEMENTS: RegExp[] = [
  // Google API keys (Maps, Gemini, Firebase…): `AIza` + 35.
  /AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
  // A JWT (JWS compact form: header.payload.signature, both JSON parts start `{"` = `eyJ`).
  /eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  // A private key block, also encrypted or cut short before its END line.
  /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  // Stripe secret and restricted keys.
  /\b[sr]k_live_[0-9A-Za-z]{20,}/g,
  // Model API keys as they appear in model conversations (a pasted key, a file a tool read):
  // Anthropic (`sk-ant-api03-…`, admin and OAuth keys) and OpenAI project/service keys, in forms
  // looser than secretlint's exact-length rules.
  /\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{20,}/g,
  /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/g,
];

/** Formats whose parts may be shorter than a run: PEM, userinfo, Slack webhooks, AWS secret keys by keyword, .npmrc tokens. */
const TRIGGERS = /-----BEGIN|:\/\/[^\s/@]*@|hooks\.slack\.com|secret_?access_?key|_authToken/i;

/** A character of a token run: [A-Za-z0-9_+=-]. */
function runChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 43 || c === 61;
}

/** Not a lowercase hex digit or dash (UUIDs and hashes are made of those). */
function notHex(c: number): boolean {
  return !((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || c === 45);
}

/** Could this text hold a known credential format? One linear pass; most strings say no. */
export function mayHoldToken(text: string): boolean {
  if (text.length < 20) return false;
  let run = 0;
  let mixed = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (runChar(c)) {
      run++;
      if (!mixed && notHex(c)) mixed = true;
      if (run >= 20 && mixed) return true;
    } else {
      run = 0;
      mixed = false;
    }
  }
  return TRIGGERS.test(text);
}

/**
 * A long string of nothing but base64 (an image, audio or a resource's `blob`): data, not a place
 * where a credential is written; scanning 1 MiB of it with every rule took 33 ms. Short ones
 * (an `AKIA…` id is base64 too) are scanned.
 */
function isDataBlob(text: string): boolean {
  return text.length > 1024 && /^[A-Za-z0-9+/=\r\n]+$/.test(text);
}

/** The text with every known credential format replaced by `[redacted]`. */
export function redactKnownTokens(text: string): string {
  if (!mayHoldToken(text) || isDataBlob(text)) return text;
  found.length = 0;
  const source = { content: text, contentType: 'text', filePath: '', ext: '' };
  for (const h of handlers) {
    try {
      const r = h(source);
      if (r && typeof (r as Promise<unknown>).then === 'function') (r as Promise<unknown>).catch(() => undefined);
    } catch {
      /* a rule that fails on this text finds nothing in it */
    }
  }
  for (const re of SUPPLEMENTS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) found.push([m.index, m.index + m[0].length]);
  }
  if (found.length === 0) return text;
  const ranges = found.filter(([a, b]) => b > a && !text.slice(a, b).includes(REDACTED)).sort((x, y) => x[0] - y[0]);
  let out = '';
  let at = 0;
  for (const [a, b] of ranges) {
    if (b <= at) continue;
    out += text.slice(at, Math.max(a, at)) + REDACTED;
    at = b;
  }
  return at === 0 ? text : out + text.slice(at);
}
