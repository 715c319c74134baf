import { defineConfig } from 'vitest/config'

// Projects, run together by `npm test` and by name with `npm run test:unit|test:integration|test:e2e`:
// - unit: pure functions and React components (happy-dom), no build, no child processes: worker threads sharing one
//   module graph (isolate off), so that `npm run test:unit` checks a change in seconds. A test that needs modules
//   loaded for the first time (a lazy chunk that must not be loaded yet) is listed in FRESH and runs isolated;
// - integration: the core with a real SQLite file, real git, real sandbox and real agent CLIs: forked processes
//   (native modules, process.chdir, signals);
// - e2e: the real UI in Chromium against `concord serve`, and the shipped suite (the built, packed, installed product).
// Every project fails a test during which an event listener threw (the bus only logs it): test/setup/listener-errors.ts.
// expect.poll waits up to 15 s unless a call says otherwise: vitest's default of 1 s failed browser tests whose UI
// answer took longer on a loaded machine (browser-first-commit read 'from master' before opening's notes arrived).
const shared = {
  testTimeout: 20_000,
  hookTimeout: 60_000,
  setupFiles: ['test/setup/listener-errors.ts'],
  expect: { poll: { timeout: 15_000 } },
}
const UNIT = ['test/unit/**/*.test.{ts,tsx}']
const FRESH = ['test/unit/markdown-highlight.test.tsx']

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      { test: { ...shared, name: 'unit', include: UNIT, exclude: FRESH, pool: 'threads', isolate: false } },
      { test: { ...shared, name: 'unit-fresh', include: FRESH, pool: 'threads' } },
      { test: { ...shared, name: 'integration', include: ['test/integration/**/*.test.{ts,tsx}'], pool: 'forks' } },
      {
        test: {
          ...shared,
          // A browser flow is many steps through the UI: browser-worktrees took 18.4 s of the 20 s default alone
          // and timed out beside another browser file. A case that names its own timeout keeps it.
          testTimeout: 120_000,
          name: 'e2e',
          include: ['test/e2e/**/*.test.{ts,tsx}', 'test/shipped/**/*.test.{ts,tsx}'],
          pool: 'forks',
        },
      },
    ],
  },
})
