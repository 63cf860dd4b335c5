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
//
// proxy/ is six layers, each importing only the layers below it (docs/architecture.md, "Layers"):
//   core < wire < recorder < files < addons < app
// One rule per layer, on folders (no file lists): a new file obeys its folder's rule by being there.

const LAYERS = ['core', 'wire', 'recorder', 'files', 'addons', 'app'];

/** Every Node builtin, as `node:x` and as the bare `x` (fs, zlib, fs/promises…). */
const nodeBuiltins = (allowed = []) => ({
  group: [
    ...builtinModules.filter((m) => !m.startsWith('_')).flatMap((m) => [m, `node:${m}`]),
    'node:*',
    ...allowed.flatMap((m) => [`!${m}`, `!node:${m}`]),
  ],
  message:
    'proxy/core and ui/src run in the browser too: no Node builtins (two documented exceptions, below). See docs/architecture.md, "Layers".',
});

/** A relative import that climbs into one of proxy/'s layer folders. */
const intoLayers = (layers) => `^(\\.\\./)+(proxy/)?(${layers.join('|')})/`;

/** The rule of the layer `name`: no import of the layers above it. */
const layerRule = (name) => {
  const above = LAYERS.slice(LAYERS.indexOf(name) + 1);
  return {
    regex: intoLayers(above),
    message: `proxy/${name} imports only the layers below it (${LAYERS.slice(0, LAYERS.indexOf(name)).join(', ') || 'none'}), never ${above.join(', ')}. See docs/architecture.md, "Layers".`,
  };
};
const noUi = {
  regex: '^(\\.\\./)+ui/',
  message: 'proxy/ never imports the UI (ui/src imports proxy/core). See docs/architecture.md.',
};
/** Inside core: model and parse are the base; annotate, correlate, lint, model-api and rules each sit on them alone. */
const CORE_TOPS = ['annotate', 'correlate', 'lint', 'model-api', 'rules'];
const coreSiblings = {
  regex: `^\\.\\./(${CORE_TOPS.join('|')})/`,
  message:
    'In proxy/core, model/ and parse/ are the base: annotate, correlate, lint, model-api and rules import them (and themselves) only. See docs/architecture.md.',
};
/** An addon's proxy-thread part (addons/<name>/wire/): core and wire only, not its own main-thread half nor another addon. */
const wireStep = [
  {
    regex: intoLayers(['recorder', 'files', 'app']),
    message:
      "An addon's wire/ folder runs on the proxy thread: it imports core and wire only (no recorder, files or app). See docs/architecture.md.",
  },
  {
    regex: '^\\.\\./(\\.\\./)?[^./][^/]*(/|$)',
    message:
      "An addon's wire/ folder runs on the proxy thread: it never imports its addon's main-thread modules or another addon. See docs/architecture.md.",
  },
];
/** The UI takes proxy/core only, and of the linter its pure report (lint-report.ts), never the linter itself (zod schemas, ajv). */
const uiImports = [
  { regex: '^(\\.\\./)+proxy/(?!core/)', message: 'ui/src imports proxy/core only (the browser-safe layer). See docs/architecture.md.' },
  {
    regex: '^(\\.\\./)+proxy/core/lint/(?!lint-report\\.js$)',
    message: 'The UI imports proxy/core/lint/lint-report.ts only: the linter (SDK schemas, ajv) runs in the recorder, not the browser.',
  },
];

const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

/** The boundary blocks (each lists every pattern for its files: see the note at the top). */
const boundaries = [
  { files: ['ui/src/**'], rules: restrict(nodeBuiltins(), ...uiImports) },
  { files: ['proxy/core/model/**', 'proxy/core/parse/**'], rules: restrict(nodeBuiltins(), layerRule('core'), noUi, coreSiblings) },
  { files: CORE_TOPS.map((f) => `proxy/core/${f}/**`), rules: restrict(nodeBuiltins(), layerRule('core'), noUi) },
  {
    // The two documented exceptions in core, both Node-only (the browser never loads them): the body
    // reader undoes Content-Encoding (node:zlib) and hashes bodies (node:crypto); the linter's time
    // guard stops a schema compile or check that runs too long (node:vm's timeout; issue 26).
    files: ['proxy/core/parse/body-reader.ts'],
    rules: restrict(nodeBuiltins(['zlib', 'crypto']), layerRule('core'), noUi, coreSiblings),
  },
  { files: ['proxy/core/lint/time-guard.ts'], rules: restrict(nodeBuiltins(['vm']), layerRule('core'), noUi) },
  ...['wire', 'recorder', 'files', 'addons'].map((layer) => ({
    files: [`proxy/${layer}/**`],
    ignores: layer === 'addons' ? ['proxy/addons/*/wire/**'] : [],
    rules: restrict(layerRule(layer), noUi),
  })),
  { files: ['proxy/addons/*/wire/**'], rules: restrict(...wireStep, noUi) },
  { files: ['proxy/app/**'], rules: restrict(noUi) },
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
    files: ['proxy/core/model/visible-text.ts'],
    rules: { 'no-misleading-character-class': 'off' },
  },

  // Boundaries: the layers (see above).
  ...boundaries,
  {
    // OpenTelemetry is loaded only when OTLP export is configured: one module imports it, and is
    // itself loaded with import() (proxy/app/mcpscope.ts). A different rule than the boundaries above,
    // so that their per-folder options are not replaced.
    files: ['proxy/**', 'ui/src/**'],
    ignores: ['proxy/addons/telemetry/otlp-exporter.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration[source.value=/^@opentelemetry[/]/], ImportExpression[source.value=/^@opentelemetry[/]/]',
          message:
            'Only proxy/addons/telemetry/otlp-exporter.ts imports OpenTelemetry (loaded with import() when --otlp / OTEL_EXPORTER_OTLP_* asks for it): with no endpoint nothing of it is loaded. See docs/architecture.md.',
        },
      ],
    },
  },
);
