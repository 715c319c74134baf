/**
 * What the e2e tests of a moving base share: git as the test's user (hooks off), a repository with a 12-line
 * src/search.js whose lines tasks change one at a time, and the three screenshot widths.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { initRepo } from '../fixtures/core'
import { screenshot } from './support'

export const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim()

/** src/search.js with the given lines changed. */
export const search = (lines: Record<number, string> = {}) =>
  Array.from({ length: 12 }, (_, i) => lines[i] ?? `line ${i}`).join('\n') + '\n'

/** A repository whose main has src/search.js. */
export function repoWithSearch(repoDir: string): void {
  initRepo(repoDir)
  mkdirSync(join(repoDir, 'src'))
  writeFileSync(join(repoDir, 'src', 'search.js'), search())
  git(repoDir, 'add', '-A')
  git(repoDir, 'commit', '-qm', 'search')
}

/** Screenshots at 1440, 1024 and 760 px wide, then back to 1440. */
export async function shots(page: Page, name: string): Promise<void> {
  for (const w of [1440, 1024, 760]) {
    await page.setViewportSize({ width: w, height: 900 })
    await screenshot(page, `${name}-${w}`)
  }
  await page.setViewportSize({ width: 1440, height: 900 })
}
