import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

/** Import patterns of the layering rules below. */
const SHARED_OUTWARDS = {
  group: ['**/middleware/**', '**/functions/**', '**/tools/**'],
  message: 'shared/ must not depend on outer layers or build-time code.',
};
const NO_MIDDY = { group: ['@middy/*'], message: 'shared/ has no knowledge of Middy.' };

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      '.esbuild*',
      '.serverless*',
      '.cache',
      '.data',
      'coverage',
      '.scratch',
      'dist',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.object.name=/^(it|test|describe)$/][callee.property.name=/^(only|skip)$/]',
          message: 'No focused or skipped tests.',
        },
      ],
    },
  },
  // Browser code (the portal preview, the reports plugin) is typed by tools/tsconfig.browser.json (DOM, JSX).
  {
    files: ['tools/portal/**/*.{ts,tsx}', 'tools/reports-plugin/**/*.{ts,tsx}'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './tools/tsconfig.browser.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  // No import cycle in the runtime or the tools (tests/unit/tools/import-cycles.test.ts): ES
  // imports, type-only ones aside, as they vanish at run time; require() is not followed.
  {
    files: ['{functions,middleware,shared,tools}/**/*.{ts,tsx,js,cjs,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.cjs', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.cjs', '.mjs', '.json'] }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // Import direction: functions → middleware → shared, never back; shared knows no Middy.
  // Nothing a function bundle holds imports the tooling (tools/), the catalogue (tools/catalogue.ts,
  // which imports every endpoint's definition) included.
  {
    files: ['shared/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SHARED_OUTWARDS, NO_MIDDY] }] },
  },
  {
    files: ['middleware/**/*.ts', 'functions/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/functions/**', '**/tools/**'],
              message: 'middleware/ and functions/ must not depend on functions/ or tools/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['tests/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        process: 'readonly',
        module: 'writable',
        require: 'readonly',
        console: 'readonly',
        __filename: 'readonly',
      },
    },
  },
  {
    // CommonJS: the serverless resolvers share their one reading of the settings through the
    // module cache osls loads them into.
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
