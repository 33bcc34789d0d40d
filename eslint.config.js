// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Query-builder calls live under src/db only (ARCHITECTURE "Layout": routes hold no SQL; use cases
// own the transaction and pass it to repository statements): a statement built elsewhere, or
// Kysely's `sql` tag imported elsewhere, is an error. Types from kysely (Transaction, Kysely) stay
// free to import: a use case names the transaction it passes on.
const QUERY_BUILDER_CALL = {
  selector: "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)$/]",
  message: 'Query-builder calls belong under src/db/ (a repository statement that takes the transaction).',
};
const KYSELY_SQL = { name: 'kysely', importNames: ['sql'], message: "Kysely's sql tag belongs under src/db/ (a repository statement that takes the transaction)." };

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'node_modules/**', 'coverage/**', 'bench/results/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**'],
    rules: {
      'no-restricted-syntax': ['error', QUERY_BUILDER_CALL],
      'no-restricted-imports': ['error', { paths: [KYSELY_SQL] }],
    },
  },
  // The layers (README "Layout"): domain/ and search/ are pure rules, db/ holds every statement and
  // knows no HTTP, and a migration is frozen history that imports no live code.
  {
    files: ['src/domain/**/*.ts', 'src/search/**/*.ts', 'src/render/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [KYSELY_SQL],
          patterns: [
            { group: ['**/db/*', '**/db/**'], message: 'Pure code never imports the database layer; pass it the data.' },
            { group: ['**/http/*', '**/http/**'], message: 'Pure code never imports the HTTP layer.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/db/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/http/*', '**/http/**'], message: 'Repositories know no HTTP: take values, raise errors.* from domain/errors.ts.' }] },
      ],
    },
  },
  {
    // A migration may use Kysely and the types of database.ts and schema.ts (types only, erased at
    // build): whatever live code does later must not change what an old migration did.
    files: ['src/db/migrations/**/*.ts'],
    ignores: ['src/db/migrations/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../../*', '../../**'], message: 'Migrations import no live code outside src/db.' },
            { group: ['../repositories/*', '../indexes/*', '../migrate.js', '../group-commit.js', '../query-template.js'], message: 'Migrations import no live code.' },
            { group: ['../database.js', '../schema.js'], allowTypeImports: true, message: 'Only types from database.ts and schema.ts.' },
          ],
        },
      ],
    },
  },
  // The web app's components follow the Rules of React (hooks at the top level, complete effect dependencies).
  {
    files: ['web/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // Tests read response bodies as loosely typed JSON on purpose; the assertions are the types.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
