/**
 * Issue 31, "A second repository repeats the whole setup": from an empty data folder with default settings, the first
 * repository is set up through the UI (a provider on the local model server, the preset team), then a second one is
 * opened and its team is the first's in one click ("Use the team of …"); a copied member answers with the copied
 * provider and the key the first repository's wizard stored (referenced, not copied). A third repository set up
 * the way a second one had to be before gives the figure to compare. The test counts every human action and prints
 * the tally. Screenshots of the offer at 1440, 1024 and 760 px.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { browserSession, screenshot } from './support'

const ui = browserSession()
const KEY = 'sk-typed-once'

/** Every click, fill and key press the human makes, with what it was for, per repository. */
const actions: { repo: string; what: string }[] = []
async function human<T>(repo: string, what: string, fn: () => Promise<T>): Promise<T> {
  actions.push({ repo, what })
  return fn()
}
const countFor = (repo: string) => actions.filter((a) => a.repo === repo).length

describe('browser UI: a second repository uses the team of the first', () => {
  it('one click copies the team, and a copied member answers with the copied provider', async () => {
    const { core, models, dataDir } = ui.stack
    const page = ui.page
    const repos = ['first', 'second', 'third'].map((name) => {
      const dir = join(dirname(ui.stack.repoDir), name)
      mkdirSync(dir)
      initRepo(dir)
      return dir
    })
    const [first, second, third] = repos as [string, string, string]
    const members = () => page.getByTestId('member-item')
    /** How many times the typed key is in the secrets file. */
    const keysStored = () => readFileSync(join(dataDir, 'secrets.json'), 'utf8').split(KEY).length - 1

    // ---- the first repository, from an empty data folder: open it, a provider, the preset team ----
    await page.goto(ui.stack.url)
    await page.getByTestId('welcome').waitFor()
    /** The wizard's two steps, as a new workspace needs them without a team to copy. */
    const wizard = async (repo: string) => {
      await page.getByTestId('setup').waitFor()
      await human(repo, 'choose Local / OpenAI-compatible', () =>
        page.getByRole('radio', { name: 'Local / OpenAI-compatible' }).click(),
      )
      await human(repo, 'type the base URL', () => page.getByLabel('Base URL').fill(models.openaiBaseURL))
      await human(repo, 'type the model', () => page.getByLabel('Model').fill('scripted-model'))
      await human(repo, 'type the API key', () => page.getByLabel('API key').fill(KEY))
      await human(repo, 'Next: the team', () => page.getByTestId('provider-next').click())
      await human(repo, 'Create 4 members', () => page.getByTestId('create-team').click())
      await expect.poll(() => members().count()).toBe(4)
    }
    await human('first', 'type the folder', () => page.getByTestId('repo-path').fill(first))
    await human('first', 'Open repository', () => page.getByTestId('open-repo').click())
    // Nothing to copy in an empty data folder: no offer.
    await page.getByTestId('setup').waitFor()
    expect(await page.getByTestId('team-offer').count()).toBe(0)
    await wizard('first')

    // ---- the second repository: open it, and one click ----
    /** Opening another repository from the sidebar. */
    const open = async (repo: string, dir: string) => {
      await human(repo, 'Workspace ▸ Open a repository…', () => page.getByLabel('Workspace').selectOption('__open'))
      await human(repo, 'type the folder', () => page.getByTestId('repo-path').fill(dir))
      await human(repo, 'Open repository', () => page.getByTestId('open-repo').click())
      await page.getByTestId('setup').waitFor()
    }
    await open('second', second)
    const offer = page.getByTestId('team-offer')
    const use = offer.getByRole('button', { name: 'Use the team of first' })
    await use.waitFor()
    expect(await offer.getByTestId('team-source').textContent()).toContain(
      'Lead, Implementer, Tester, Reviewer · openai-compatible · scripted-model',
    )
    for (const width of [1440, 1024, 760]) {
      await page.setViewportSize({ width, height: 900 })
      // At 760 px the right panel is a drawer over the centre, folded in a window opened that narrow.
      if (width === 760) await page.getByRole('button', { name: 'Hide panel' }).click()
      await use.scrollIntoViewIfNeeded()
      await screenshot(page, `team-copy-offer-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.getByRole('button', { name: 'Show panel' }).click()
    expect(keysStored()).toBe(4)
    await human('second', 'Use the team of first', () => use.click())
    await expect.poll(() => members().count()).toBe(4)
    const [wsFirst, wsSecond] = await Promise.all(
      [first, second].map(async (dir) => (await core.invoke('workspaces.list', {})).find((w) => w.repoPath === dir)!),
    )
    const copied = await core.invoke('members.list', { workspaceId: wsSecond!.id })
    const originals = await core.invoke('members.list', { workspaceId: wsFirst!.id })
    expect(copied.map((m) => [m.name, m.role, m.authority, m.approval, m.provider?.model, m.provider?.hasKey])).toEqual(
      originals.map((m) => [m.name, m.role, m.authority, m.approval, m.provider?.model, m.provider?.hasKey]),
    )
    // The copies refer to the keys the first wizard stored (one per member there): none was written again.
    expect(keysStored()).toBe(4)

    // ---- a copied member's turn, against the local model server, with the first repository's key ----
    await members().filter({ hasText: 'Implementer' }).click()
    const session = page.getByTestId('member-session')
    await session.getByTestId('session-head').filter({ hasText: 'Implementer' }).waitFor()
    models.enqueue({ text: 'Ready in the second repository, same provider.' })
    const sent = models.requests.length
    await session.getByTestId('composer').fill('Are you set up here?')
    await session.getByTestId('send').click()
    await expect
      .poll(() => session.locator('[data-kind=model][data-status=done]').textContent())
      .toContain('Ready in the second repository, same provider.')
    const request = models.requests.slice(sent).at(-1)!
    expect(request.body.model).toBe('scripted-model')
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`)
    await screenshot(page, 'team-copy-turn-1440')

    // ---- the third repository, set up the way a second one had to be before: the figure to compare ----
    await open('third', third)
    await wizard('third')

    const tally = ['first', 'second', 'third'].map((r) => `${r}: ${countFor(r)}`).join(', ')
    console.log(`human actions per repository (issue 31) — ${tally}`)
    console.log(actions.map((a) => `  ${a.repo}: ${a.what}`).join('\n'))
    expect(countFor('second')).toBe(4)
    expect(countFor('third')).toBe(9)
    expect(ui.errors).toEqual([])
  }, 180_000)
})
