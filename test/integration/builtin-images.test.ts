/**
 * Images in prompts reach a built-in member's model (issue 35), in both wire formats, through the real SDK clients
 * against the scripted model server: OpenAI chat completions as an image_url part with a data: URL, Anthropic
 * messages as an image block with a base64 source. A later turn still shows the model the image (it is part of the
 * session). A model that refuses the call: the error says the call carried images, and the member is not stuck.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member } from '../../shared/schemas'
import { pngInput, solidPng } from '../fixtures/images'
import type { RecordedRequest } from '../fixtures/model-server'
import { sessionState, takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } } })
})
afterEach(() => t.cleanup())

const screenshot = solidPng(4, 3, [200, 10, 10])
const b64 = screenshot.toString('base64')

const anthropicMember = (): Promise<Member> =>
  t.member('Claude', {
    provider: { kind: 'anthropic', model: 'claude-test', apiKey: 'sk-ant-test', baseURL: t.server.anthropicBaseURL },
  })

/** The content of the last user message of a recorded request. */
const lastUser = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').at(-1)!.content

describe('images to a built-in member', () => {
  it('OpenAI chat completions: the text, then the image as an image_url part with a data: URL', async () => {
    const m = await t.member('Ivy')
    t.server.enqueue({ text: 'A red square.' }, { text: 'Still red.' })
    await takeTurn(t.core, { memberId: m.id, text: 'What is this?', images: [pngInput(screenshot)] })
    const [first] = await t.server.waitForRequests(1)
    expect(first!.format).toBe('openai')
    expect(lastUser(first!)).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } },
    ])
    // The next turn's history still carries the image with its message; the new message is plain text.
    await takeTurn(t.core, { memberId: m.id, text: 'And now?' })
    const [, second] = await t.server.waitForRequests(2)
    const users = (second!.body.messages as { role: string; content: unknown }[]).filter((x) => x.role === 'user')
    expect(JSON.stringify(users)).toContain(`data:image/png;base64,${b64}`)
    expect(users.at(-1)!.content).toBe('And now?')
  })

  it('Anthropic messages: an image block with a base64 source, before the text', async () => {
    const m = await anthropicMember()
    t.server.enqueue({ text: 'A red square.' })
    await takeTurn(t.core, { memberId: m.id, text: 'What is this?', images: [pngInput(screenshot)] })
    const [req] = await t.server.waitForRequests(1)
    expect(req!.format).toBe('anthropic')
    expect(lastUser(req!)).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } },
      // (the last block carries Concord's prompt-cache mark)
      expect.objectContaining({ type: 'text', text: 'What is this?' }),
    ])
  })

  it('an image without text: OpenAI gets the image_url part alone, Anthropic the image block alone', async () => {
    const ivy = await t.member('Ivy')
    const claude = await anthropicMember()
    t.server.enqueue({ text: 'A red square.' }, { text: 'A red square.' })
    await takeTurn(t.core, { memberId: ivy.id, text: '', images: [pngInput(screenshot)] })
    await takeTurn(t.core, { memberId: claude.id, text: '  ', images: [pngInput(screenshot)] })
    const [openai, anthropic] = await t.server.waitForRequests(2)
    expect(lastUser(openai!)).toEqual([{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } }])
    expect(lastUser(anthropic!)).toEqual([
      expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }),
    ])
  })

  it('a model that refuses the call: the error says the call carried images; the member takes the next message', async () => {
    const m = await t.member('Local')
    t.server.enqueue(
      { status: 400, errorMessage: 'image input is not supported by this model' },
      { text: 'Fine without.' },
    )
    const failed = sessionState(t.core, m.id, 'error', { queued: 'any' })
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'Look', images: [pngInput(screenshot)] })
    const error = (await failed).payload.session.error!
    expect(error).toContain('image input is not supported by this model')
    expect(error).toContain('this call carried images')
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'Without the image then' })
    expect(steps.at(-1)!.text).toBe('Fine without.')
  })
})
