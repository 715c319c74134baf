// Lint: typescript-eslint's strict, type-checked rules and the React hooks rules. Formatting is Prettier's job
// (npm run format), so no stylistic rules here. Every rule turned off or relaxed below says why.
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  { ignores: ['out/**', 'dist/**', 'coverage/**', 'native/**', 'node_modules/**', 'test/e2e/__screenshots__/**'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // Numbers, booleans and null/undefined print as meant in messages and keys (`${n} files`, `v${version}`).
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowNullish: true },
      ],
      // `() => set(x)` handlers and `return send(res, …)` early exits are the house idiom; a void value is never used.
      '@typescript-eslint/no-confusing-void-expression': [
        'error',
        { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true },
      ],
      // Off for now: noUncheckedIndexedAccess is on everywhere, so it no longer asks to delete right guards on `list[i]`,
      // but it reports 75 conditions (39 in electron/main, 15 in the renderer) still to be read one by one.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // `!` marks a value the code has just proved present (a row read back after its insert, a Map filled above);
      // the alternatives are an `as` cast, which hides more, or a throw that cannot happen.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // A leading underscore marks a binding kept on purpose (a rest-omit destructuring, a positional parameter),
      // as tsc's noUnusedLocals/noUnusedParameters already read it.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // `async` on a method that implements a Promise-returning interface turns a throw into a rejection, which its
      // callers handle; the rule would have those bodies return Promise.resolve(...) by hand instead.
      '@typescript-eslint/require-await': 'off',
      // Name and path validators reject control characters on purpose (\x00-\x1f in the pattern is the point).
      'no-control-regex': 'off',
      // Reported, not blocking: leaving a deprecated API (OpenAI's max_tokens, which compatible servers still expect;
      // Electron's synchronous safeStorage) is a product change, not a lint fix.
      '@typescript-eslint/no-deprecated': 'warn',
      // A type parameter used once is how a caller states the type it expects (the contract's r<Workspace>(),
      // waitForEvent<T>()); the rule would have those written as casts at every call instead.
      '@typescript-eslint/no-unnecessary-type-parameters': 'off',
    },
  },
  {
    files: ['test/**/*.{ts,tsx}'],
    rules: {
      // Tests read JSON bodies, SDK payloads and recorded requests untyped on purpose: checking their shape is the test.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      // Tests remove environment variables they set (`delete process.env[name]`): assigning undefined would leave "undefined".
      '@typescript-eslint/no-dynamic-delete': 'off',
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      // The zustand store's actions are declared as methods but are arrow functions closed over the store: taking one
      // out of the store (`const { load } = useStore()`) is safe, which this rule cannot see.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  { files: ['renderer/**/*.{ts,tsx}', 'test/unit/**/*.tsx'], ...reactHooks.configs.flat.recommended },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
)
