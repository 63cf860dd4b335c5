// ESLint flat config: `npm run lint`. What it enforces, and why, is in docs/architecture.md
// ("Rules the tools keep"). Not type-aware (no parserOptions.project): the whole tree lints in
// seconds on a 2-core machine; `npm run typecheck` is where the types are checked.
//
// Import boundaries use ESLint's own `no-restricted-imports`, one `files` block per folder, rather
// than a plugin (eslint-plugin-import-x's no-restricted-paths, eslint-plugin-boundaries): no
// resolver to configure, no extra dependency tree to keep within our Node `engines`, and every
// import in this codebase is a relative path ending in `.js`, which a pattern on the specifier
// matches exactly. Caveats: a flat config replaces a rule's options rather than merging them, so
// each block below lists *all* the patterns for its files (built by the helpers); and the rule
// sees direct `import`/`export … from` only, not `import()` or what an import imports in turn.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

// --- Import boundaries ------------------------------------------------------------------------

/** Every Node builtin, as `node:x` and as the bare `x` (fs, zlib, fs/promises…). */
const nodeBuiltins = (allowed = []) => ({
  group: [
    ...builtinModules.filter((m) => !m.startsWith('_')).flatMap((m) => [m, `node:${m}`]),
    'node:*',
    ...allowed.flatMap((m) => [`!${m}`, `!node:${m}`]),
  ],
  message:
    'Shared modules (proxy/model, parse, correlate, annotate, ui/src) run in the browser too: no Node builtins. See docs/architecture.md, "Rules the tools keep".',
});

/** A relative import of one of proxy/'s folders, from anywhere under proxy/ (or test/…). */
const proxyFolder = (folders) => `^(\\.\\./)+(proxy/)?(${folders.join('|')})/`;

const layerBoundary = {
  regex: proxyFolder(['annotate', 'serve', 'reverse', 'thread', 'record', 'store', 'export', 'import', 'replay']),
  message:
    'proxy/parse and proxy/correlate sit below annotate, record, store, serve, the proxies and export/import/replay: they never import them. See docs/architecture.md.',
};
const noUi = {
  regex: '^(\\.\\./)+ui/',
  message: 'proxy/parse and proxy/correlate never import the UI. See docs/architecture.md.',
};
const lintBoundary = {
  regex: proxyFolder(['annotate', 'serve', 'reverse', 'forward', 'forwarding', 'thread', 'record', 'store', 'export', 'import', 'replay']),
  message:
    'proxy/lint (the spec linter) reads messages and the model only: the recorder calls it, it never imports the recorder, store, servers or proxies. See docs/architecture.md.',
};
const modelApiBoundary = {
  regex: proxyFolder([
    'annotate',
    'serve',
    'reverse',
    'forward',
    'forwarding',
    'thread',
    'record',
    'store',
    'export',
    'import',
    'replay',
    'lint',
    'telemetry',
    'agent',
  ]),
  message:
    "proxy/model-api (the model APIs' wire formats, the join, the context cost) is pure: the recorder calls it (record/model-turns.ts); it imports only model/ and parse/. See docs/architecture.md.",
};
/** The UI may take the linter's pure report (lint-report.ts), never the linter itself (zod schemas, ajv). */
const uiLint = {
  regex: '^(\\.\\./)+proxy/lint/(?!lint-report\\.js$)',
  message: 'The UI imports proxy/lint/lint-report.ts only: the linter (SDK schemas, ajv) runs in the recorder, not the browser.',
};
const threadBoundary = {
  regex: proxyFolder(['record', 'store', 'correlate', 'lint', 'export', 'import', 'replay', 'telemetry']),
  message:
    "The proxy thread's modules (forwarding, forward, reverse, capture, proxy-worker, fault-actions, breakpoint holds) never import record, store, correlate, lint, export, import, replay or telemetry (OTLP export): those run on the main thread. See docs/architecture.md.",
};

const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

const SHARED = [
  'proxy/model/**',
  'proxy/annotate/**',
  'ui/src/**',
  // Breakpoints: the parts the browser, the proxy thread and stdio wrappers share.
  'proxy/breakpoints/breakpoint-types.ts',
  'proxy/breakpoints/breakpoint-rules.ts',
  'proxy/breakpoints/wire-peek.ts',
  'proxy/breakpoints/action-checks.ts',
  'proxy/breakpoints/hold-desk.ts',
  // The annotated log's formatter (--log, format=text): pure, so any consumer (the UI too) can format events.
  'proxy/export/text-log.ts',
  'proxy/export/text-log-render.ts',
];
const LOWER_LAYERS = ['proxy/parse/**', 'proxy/correlate/**'];
const PROXY_THREAD = [
  'proxy/thread/proxy-worker.ts',
  'proxy/reverse/**',
  'proxy/forward/**',
  'proxy/forwarding/**',
  'proxy/faults/fault-actions.ts',
  'proxy/capture/**',
  'proxy/breakpoints/http-holds.ts',
  'proxy/breakpoints/own-messages.ts',
  'proxy/breakpoints/sse-hold-stage.ts',
  'proxy/breakpoints/hold-desk.ts',
  'proxy/breakpoints/wire-peek.ts',
];

// --- Config -----------------------------------------------------------------------------------

export default tseslint.config(
  {
    ignores: ['dist/**', 'coverage/**', 'scratch/**', '.scratch/**', 'ui/dist/**', 'test/fixtures/**', '**/.vite/**'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      // `_`-prefixed names are deliberately unused (a callback's position, a discarded rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // `let timer; const cleanup = () => clearTimeout(timer); timer = setTimeout(…)`: a closure
      // declared before the one assignment reads the variable, so it cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Stylistic or too noisy for this codebase, which uses them on purpose:
      // `catch {}` / empty callbacks that swallow a socket's late error;
      'no-empty': ['error', { allowEmptyCatch: true }],
      // control characters in regexes that scan wire bytes and headers;
      'no-control-regex': 'off',
    },
  },
  {
    files: ['ui/src/**/*.{ts,tsx}', 'test/ui/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['ui/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },

  {
    // The badge scanner matches single code units on purpose (a lone variation selector or
    // combining grapheme joiner is exactly what it must find), which this rule reports.
    files: ['proxy/model/visible-text.ts'],
    rules: { 'no-misleading-character-class': 'off' },
  },

  // Boundaries (each block lists every pattern for its files: see the note at the top).
  { files: SHARED.filter((f) => f !== 'ui/src/**'), rules: restrict(nodeBuiltins()) },
  { files: ['ui/src/**'], rules: restrict(nodeBuiltins(), uiLint) },
  { files: ['proxy/lint/**'], rules: restrict(nodeBuiltins(), lintBoundary, noUi) },
  { files: ['proxy/model-api/**'], rules: restrict(nodeBuiltins(), modelApiBoundary, noUi) },
  {
    // The linter's one builtin: its time guard stops a schema compile or check that runs too long
    // (node:vm's timeout; issue 26). The browser never runs the linter (it imports lint-report.ts only).
    files: ['proxy/lint/time-guard.ts'],
    rules: restrict(nodeBuiltins(['vm']), lintBoundary, noUi),
  },
  { files: LOWER_LAYERS, rules: restrict(nodeBuiltins(), layerBoundary, noUi) },
  {
    // The one documented exception: the body reader undoes Content-Encoding (node:zlib) and
    // hashes bodies (node:crypto). It runs only in Node (the recorder), never in the browser.
    files: ['proxy/parse/body-reader.ts'],
    rules: restrict(nodeBuiltins(['zlib', 'crypto']), layerBoundary, noUi),
  },
  // The proxy thread's modules; those the browser shares too (hold-desk.ts, wire-peek.ts) keep both
  // rules in one block: a later block's no-restricted-imports replaces an earlier one's, so two
  // blocks would have left them the thread rule only (Node builtins allowed; issue 29).
  { files: PROXY_THREAD, ignores: SHARED, rules: restrict(threadBoundary) },
  { files: PROXY_THREAD.filter((f) => SHARED.includes(f)), rules: restrict(nodeBuiltins(), threadBoundary) },
  {
    // OpenTelemetry is loaded only when OTLP export is configured: one module imports it, and is
    // itself loaded with import() (proxy/mcpscope.ts). A different rule than the boundaries above,
    // so that their per-folder options are not replaced.
    files: ['proxy/**', 'ui/src/**'],
    ignores: ['proxy/telemetry/otlp-exporter.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration[source.value=/^@opentelemetry[/]/], ImportExpression[source.value=/^@opentelemetry[/]/]',
          message:
            'Only proxy/telemetry/otlp-exporter.ts imports OpenTelemetry (loaded with import() when --otlp / OTEL_EXPORTER_OTLP_* asks for it): with no endpoint nothing of it is loaded. See docs/architecture.md.',
        },
      ],
    },
  },
);
