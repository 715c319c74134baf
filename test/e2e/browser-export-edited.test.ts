/**
 * The export box when Concord's ADR files were changed since it wrote them (issue 35): after adr-tools' own
 * `adr new -s 2` (the real @meza/adr-tools) supersedes Concord's ADR 2 in its file, the box names the file and the
 * change instead of planning an export that would drop it, and goes on only when the user ticks "Overwrite".
 * Screenshots at 1440, 1024 and 760 px.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()
const ADR_TOOLS = resolve(import.meta.dirname, '..', '..', 'node_modules', '@meza', 'adr-tools', 'dist', 'index.js')

const adr = (cwd: string, ...args: string[]) =>
  execFileSync(process.execPath, [ADR_TOOLS, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ADR_DATE: '2024-02-01', NO_COLOR: '1' },
  })

describe('browser UI: the export box and files changed since the last export', () => {
  it('names the file adr-tools superseded and its change, writes nothing, and overwrites only when asked', async () => {
    const { core, repoDir } = ui.stack
    initRepo(repoDir)
    adr(repoDir, 'init', 'doc/adr')
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'web-search', isolation: 'shared' })
    for (const [title, statement] of [
      ['Web search timeout', 'Web search gives up after 10 s and returns the partial results it has.'],
      ['Result cache', 'Search results are cached for 60 s.'],
    ] as const)
      await core.invoke('decisions.create', { workspaceId: ws.id, title, statement })
    // Exported as adr-tools reads them (the repository's .adr-dir says so), then superseded by adr-tools itself.
    const first = await core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr' })
    expect(first.folder).toBe('doc/adr')
    adr(repoDir, 'new', '-q', '-s', '2', 'Stream', 'partial', 'results')
    const file = join(repoDir, 'doc', 'adr', '0002-web-search-timeout.md')
    const edited = readFileSync(file, 'utf8')
    expect(edited).toContain(
      '\n## Status\n\nSuperseded by [4. Stream partial results](0004-stream-partial-results.md)\n',
    )

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-decisions').click()
    await page.getByTestId('export-open').click()
    const box = page.getByTestId('export-edited')
    await box.waitFor()
    expect(await box.textContent()).toContain('A file was changed since Concord wrote it')
    expect(await box.textContent()).toContain(
      'doc/adr/0002-web-search-timeout.md: its status is now "Superseded by [4. Stream partial results](0004-stream-partial-results.md)", where this export would write "Accepted".',
    )
    expect(await page.getByTestId('export-run').isDisabled()).toBe(true)
    expect(await page.getByTestId('export-plan').count()).toBe(0)
    await screenshot(page, 'export-edited-1440')

    for (const width of [1024, 760]) {
      const { page: p, context } = await newPage(ui.browser, { width, height: 800 })
      await p.goto(ui.stack.url)
      if (width < 960) await p.getByRole('button', { name: 'Show panel' }).click()
      await p.locator('[data-testid=export-open]:visible').click()
      await p.locator('[data-testid=export-edited]:visible').waitFor()
      await p.locator('[data-testid=export-box]:visible').scrollIntoViewIfNeeded()
      await screenshot(p, `export-edited-${width}`)
      await context.close()
    }

    // Ticking "Overwrite" plans the export again, and the zip holds Concord's file.
    await page.getByTestId('export-overwrite').check()
    const plan = page.getByTestId('export-plan')
    await plan.waitFor()
    expect(await plan.textContent()).toContain('doc/adr/0002-web-search-timeout.md')
    expect(await page.getByTestId('export-run').isDisabled()).toBe(false)
    await screenshot(page, 'export-edited-overwrite-1440')
    expect(readFileSync(file, 'utf8')).toBe(edited)
    expect(ui.errors).toEqual([])
  }, 90_000)
})
