/**
 * Images in prompts through the UI (issue 35), in real Chromium: a screenshot pasted into the composer, or image files
 * dropped on it, wait as thumbnails (each with its ×) and go with the message; the scripted model server receives
 * them in the member's wire format (OpenAI image_url part, Anthropic image block); the session shows the message's
 * images after a reload, each opening at full size. Too large or too many say so in the server's words, and nothing
 * is sent; images alone are a message.
 */
import { createHash } from 'node:crypto'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { imagesProblem, maxImageBytes } from '../../shared/images'
import { solidPng } from '../fixtures/images'
import type { RecordedRequest } from '../fixtures/model-server'
import { scriptedProvider } from '../fixtures/scripted-agent'
import { browserSession, screenshot } from './support'

const ui = browserSession()

/** The workspace of these tests (each test can run alone: the first to run opens it). */
async function imagesWorkspace() {
  const { core, repoDir } = ui.stack
  const held = (await core.invoke('workspaces.list', {})).find((w) => w.name === 'images')
  return held ?? core.invoke('workspaces.open', { repoPath: repoDir, name: 'images', isolation: 'shared' })
}

/** What the page dispatches: a paste into the message box, or a drop onto the composer, of these files. */
type Files = { name: string; type: string; base64: string; padTo?: number }[]

async function dispatchFiles(page: Page, kind: 'paste' | 'drop', files: Files): Promise<void> {
  const target = page.locator('[data-testid=member-session]:visible [data-testid=composer]')
  await target.evaluate(
    (box, { kind, files }) => {
      const dt = new DataTransfer()
      for (const f of files) {
        const head = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))
        const bytes = new Uint8Array(Math.max(f.padTo ?? 0, head.length))
        bytes.set(head)
        dt.items.add(new File([bytes], f.name, { type: f.type }))
      }
      if (kind === 'paste') {
        box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }))
        return
      }
      const composer = box.closest('.composer')!
      composer.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }))
      composer.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }))
    },
    { kind, files },
  )
}

/** The content of the last user message of a recorded request. */
const lastUser = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').at(-1)!.content

const red = solidPng(40, 30, [220, 40, 40])
const blue = solidPng(30, 30, [40, 80, 220])
const png = (name: string, bytes: Buffer, padTo?: number) => ({
  name,
  type: 'image/png',
  base64: bytes.toString('base64'),
  ...(padTo ? { padTo } : {}),
})

describe('browser UI: images in prompts', () => {
  it('a pasted screenshot goes with the message (OpenAI image_url) and shows in the session after a reload', async () => {
    const { core, models } = ui.stack
    const ws = await imagesWorkspace()
    await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      approval: 'auto',
      provider: { kind: 'openai', model: 'scripted', baseURL: models.openaiBaseURL, apiKey: 'sk-e2e' },
    })
    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Ivy' }).click()
    const session = page.locator('[data-testid=member-session]:visible')
    const box = session.getByTestId('composer')
    await box.waitFor()

    await dispatchFiles(page, 'paste', [png('image.png', red), png('second.png', blue)])
    await expect.poll(() => session.getByTestId('composer-thumb').count()).toBe(2)
    // The second one was a mistake: its × takes it out.
    await session.getByTestId('composer-thumb-remove').last().click()
    await expect.poll(() => session.getByTestId('composer-thumb').count()).toBe(1)
    await box.fill('The button is red here, why?')
    await screenshot(page, 'images-01-composer-1440')

    models.enqueue({ text: 'It uses the danger colour.' })
    await session.getByTestId('send').click()
    const [req] = await models.waitForRequests(1, 15_000)
    expect(req!.format).toBe('openai')
    expect(lastUser(req!)).toEqual([
      { type: 'text', text: 'The button is red here, why?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${red.toString('base64')}` } },
    ])
    await expect.poll(() => session.getByTestId('composer-thumb').count()).toBe(0)
    await session.getByText('It uses the danger colour.').waitFor()

    await page.reload()
    const thumb = page.locator('[data-testid=member-session]:visible [data-kind=user] [data-testid=step-image]')
    await expect.poll(() => thumb.getAttribute('data-loaded')).toBe('true')
    expect(await thumb.locator('img').getAttribute('src')).toBe(`data:image/png;base64,${red.toString('base64')}`)
    await screenshot(page, 'images-02-session-1440')
    await thumb.click()
    const full = page.getByTestId('step-image-full')
    await full.waitFor()
    expect(await full.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([40, 30])
    await screenshot(page, 'images-03-full-size-1440')
    await page.keyboard.press('Escape')
    await expect.poll(() => full.count()).toBe(0)
    expect(ui.errors).toEqual([])
  }, 120_000)

  it('dropped images: too large or too many say why and send nothing; images alone reach Anthropic as image blocks', async () => {
    const { core, models } = ui.stack
    const ws = await imagesWorkspace()
    const cleo = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Cleo',
      role: 'reviewer',
      approval: 'auto',
      provider: { kind: 'anthropic', model: 'claude-test', baseURL: models.anthropicBaseURL, apiKey: 'sk-ant-e2e' },
    })
    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('member-item').filter({ hasText: 'Cleo' }).click()
    const session = page.locator('[data-testid=member-session]:visible')
    await session.getByTestId('composer').waitFor()
    const problem = session.getByTestId('composer-images-problem')
    const before = models.requests.length

    // Over the size limit: the server's own words, Send disabled, Enter sends nothing.
    await dispatchFiles(page, 'drop', [png('huge.png', red, maxImageBytes + 1024)])
    const big = Buffer.concat([red, Buffer.alloc(maxImageBytes + 1024 - red.length)])
    const tooBig = imagesProblem([{ mediaType: 'image/png', data: big.toString('base64') }])!.message
    await expect.poll(() => problem.textContent()).toContain(tooBig)
    expect(await session.getByTestId('send').isDisabled()).toBe(true)
    await session.getByTestId('composer').press('Enter')
    await session.getByTestId('composer-thumb-remove').click()
    await expect.poll(() => problem.count()).toBe(0)

    // One too many.
    await dispatchFiles(
      page,
      'drop',
      Array.from({ length: 9 }, (_, i) => png(`shot-${i}.png`, i === 0 ? blue : red)),
    )
    await expect.poll(() => session.getByTestId('composer-thumb').count()).toBe(9)
    await expect.poll(() => problem.textContent()).toContain('images: at most 8 images a message')
    await screenshot(page, 'images-04-too-many-1440')
    expect(await session.getByTestId('send').isDisabled()).toBe(true)
    for (let left = 9; left > 1; left--) {
      await session.getByTestId('composer-thumb-remove').last().click()
      await expect.poll(() => session.getByTestId('composer-thumb').count()).toBe(left - 1)
    }
    await expect.poll(() => problem.count()).toBe(0)
    expect(models.requests.length).toBe(before)
    expect((await core.invoke('sessions.get', { memberId: cleo.id })).steps).toEqual([])

    // A file that is not an image is named, not attached.
    await dispatchFiles(page, 'drop', [{ name: 'notes.txt', type: 'text/plain', base64: btoa('hello') }])
    await session.getByText('notes.txt is not an image: only images go with a message.').waitFor()
    expect(await session.getByTestId('composer-thumb').count()).toBe(1)

    // The image alone, no text: an Anthropic image block, nothing else.
    models.enqueue({ text: 'A blue square.' })
    await session.getByTestId('send').click()
    const [req] = (await models.waitForRequests(before + 1, 15_000)).slice(before)
    expect(req!.format).toBe('anthropic')
    expect(lastUser(req!)).toEqual([
      expect.objectContaining({
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: blue.toString('base64') },
      }),
    ])
    await session.getByText('A blue square.').waitFor()
    await expect.poll(() => session.locator('[data-kind=user] [data-testid=step-image]').count()).toBe(1)
    expect(ui.errors).toEqual([])
  }, 120_000)

  it('ACP agents: one that takes images gets them as image blocks; one that does not, the session says so', async () => {
    const { core } = ui.stack
    const ws = await imagesWorkspace()
    const agent = (name: string, image: boolean) =>
      core.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role: 'implementer',
        approval: 'auto',
        provider: scriptedProvider({
          ...(image ? { promptCapabilities: { image: true } } : {}),
          turn: [{ sayPrompt: true }],
        }),
      })
    await agent('Seer', true)
    await agent('Blind', false)
    const page = ui.page
    await page.goto(ui.stack.url)
    const sha = createHash('sha256').update(red.toString('base64')).digest('hex')
    for (const name of ['Seer', 'Blind']) {
      await page.getByTestId('member-item').filter({ hasText: name }).click()
      await expect
        .poll(() =>
          page.locator('[data-testid=member-session]:visible [data-testid=session-head]').first().textContent(),
        )
        .toContain(name)
      const session = page.locator('[data-testid=member-session]:visible')
      await dispatchFiles(page, 'paste', [png('image.png', red)])
      await expect.poll(() => session.getByTestId('composer-thumb').count()).toBe(1)
      await session.getByTestId('composer').fill('What is this?')
      await session.getByTestId('send').click()
      if (name === 'Seer') await session.getByText(`prompt: text, image image/png ${sha}`).waitFor({ timeout: 30_000 })
      else {
        await session.getByText('prompt: text (images left out)').waitFor({ timeout: 30_000 })
        await session.getByText(/The message carried an image that .* did not get/).waitFor()
        await screenshot(page, 'images-05-acp-left-out-1440')
      }
      await expect.poll(() => session.locator('[data-kind=user] [data-testid=step-image]').count()).toBe(1)
    }
    expect(ui.errors).toEqual([])
  }, 120_000)
})
