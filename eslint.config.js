// ESLint for the page's own JavaScript (web/js: vanilla ES modules, no build step); `make check`
// runs it through scripts/lint-js.sh on web/js and this file. web/vendor/ is third-party: not
// ours to lint, so it is ignored here too (for editors that lint whatever file is open).
// Prettier (.prettierrc.json) lays the code out; max-len catches what it leaves long (comments),
// at the width ruff keeps Python to (pyproject.toml), so both languages read alike.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import globals from 'globals';

const LINE_LENGTH = 100;

const WORKER = 'web/js/markdown/hlworker.js';

const page = {
  plugins: { '@stylistic': stylistic },
  languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
  linterOptions: { reportUnusedDisableDirectives: 'error' },
  rules: {
    ...js.configs.recommended.rules,
    'no-unused-vars': ['error', { args: 'after-used', ignoreRestSiblings: true }],
    eqeqeq: ['error', 'always', { null: 'ignore' }],
    'no-var': 'error',
    'prefer-const': 'error',
    // Like ruff's E501: a single long string, template, regular expression or URL may run on.
    '@stylistic/max-len': [
      'error',
      {
        code: LINE_LENGTH,
        ignoreUrls: true,
        ignoreStrings: true,
        ignoreTemplateLiterals: true,
        ignoreRegExpLiterals: true,
      },
    ],
  },
};

export default [
  { ignores: ['web/vendor/**'] },
  {
    ...page,
    files: ['web/js/**/*.js'],
    ignores: [WORKER],
    languageOptions: { ...page.languageOptions, globals: globals.browser },
  },
  {
    // A module worker (hloffthread.js starts it with `type: 'module'`): worker globals, no DOM.
    ...page,
    files: [WORKER],
    languageOptions: { ...page.languageOptions, globals: globals.worker },
  },
  {
    files: ['eslint.config.js'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.node },
    rules: js.configs.recommended.rules,
  },
];
