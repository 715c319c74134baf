/**
 * The export box under `concord serve` (issue 22, Export from the app): it lists the files a dry run on the server
 * plans, refuses a folder outside the repository with its code, and offers the zip to download instead of writing
 * into the server's checkout; the zip is read back with `unzip`. Screenshots at 1440, 1024 and 760 px.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, newPage, screenshot } from './support'

const ui = browserSession()

describe('browser UI: the export box', () => {
  it('lists what it will write, refuses a folder outside the repository, and downloads a zip under serve', async () => {
    const { core, repoDir } = ui.stack
    initRepo(repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'web-search', isolation: 'shared' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Ada', role: 'lead' })
    for (const [title, statement] of [
      ['Web search timeout', 'Web search gives up after 10 s and returns the partial results it has.'],
      ['Result cache', 'Search results are cached for 60 s.'],
    ] as const)
      await core.invoke('decisions.create', { workspaceId: ws.id, title, statement })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('tab-decisions').click()
    await page.getByTestId('export-open').click()
    const plan = page.getByTestId('export-plan')
    await plan.waitFor()
    expect(await plan.textContent()).toContain('The zip will hold 2 files')
    expect(await plan.textContent()).toContain('docs/decisions/0001-web-search-timeout.md')
    expect(await page.getByTestId('export-folder').getAttribute('placeholder')).toBe('docs/decisions')
    await screenshot(page, 'export-box-1440')

    // A folder outside the repository: the server's stable code and message, nothing to download.
    await page.getByTestId('export-folder').fill('../elsewhere')
    await page.getByRole('alert').filter({ hasText: 'folder' }).waitFor()
    expect(await page.getByRole('alert').first().textContent()).toContain('has a .. part')
    expect(await page.getByTestId('export-run').isDisabled()).toBe(true)
    await screenshot(page, 'export-box-refused-1440')

    await page.getByTestId('export-folder').fill('architecture/decisions')
    await expect.poll(() => plan.textContent()).toContain('architecture/decisions/0002-result-cache.md')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-run').click()])
    expect(download.suggestedFilename()).toBe('web-search-decisions-madr.zip')
    const scratch = mkdtempSync(join(tmpdir(), 'concord-dl-'))
    try {
      const zip = join(scratch, 'export.zip')
      await download.saveAs(zip)
      expect(execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n')).toEqual([
        'architecture/decisions/0001-web-search-timeout.md',
        'architecture/decisions/0002-result-cache.md',
      ])
      expect(
        execFileSync('unzip', ['-p', zip, 'architecture/decisions/0002-result-cache.md'], { encoding: 'utf8' }),
      ).toContain('Search results are cached for 60 s.')
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
    await page.getByTestId('export-done').waitFor()
    // Nothing was written into the server's checkout.
    expect(existsSync(join(repoDir, 'architecture'))).toBe(false)
    expect(existsSync(join(repoDir, 'docs'))).toBe(false)

    for (const width of [1024, 760]) {
      const { page: p, context } = await newPage(ui.browser, { width, height: 800 })
      await p.goto(ui.stack.url)
      await p.getByTestId('member-item').first().waitFor()
      // The right panel opens on Decisions by default (a narrow window keeps a second, hidden copy for its drawer).
      // At 760 px the right panel starts folded: the user unfolds it first.
      if (width < 960) await p.getByRole('button', { name: 'Show panel' }).click()
      await p.locator('[data-testid=export-open]:visible').click()
      await p.locator('[data-testid=export-plan]:visible').waitFor()
      await p.locator('[data-testid=export-box]:visible').scrollIntoViewIfNeeded()
      await screenshot(p, `export-box-${width}`)
      await context.close()
    }
    expect(ui.errors).toEqual([])
  }, 90_000)
})
