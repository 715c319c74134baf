/**
 * Images in prompts to an external agent over ACP (issue 35), with a real agent process (the scripted ACP agent):
 * one whose initialize answer takes images (promptCapabilities.image) gets them as image blocks after the text of
 * session/prompt; one that does not gets the text only, told the images were left out, and the human reads a notice.
 */
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Step } from '../../shared/schemas'
import { pngInput, solidPng } from '../fixtures/images'
import { scriptedProvider, type AgentScript } from '../fixtures/scripted-agent'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const agent = (script: AgentScript): Promise<Member> =>
  t.core.invoke('members.create', {
    workspaceId: t.ws.id,
    name: 'Agent',
    role: 'implementer',
    approval: 'auto',
    provider: scriptedProvider(script),
  })

const png = solidPng(5, 5, [0, 128, 255])
const sha = createHash('sha256').update(png.toString('base64')).digest('hex')
const said = (steps: Step[]) =>
  steps
    .filter((s) => s.kind === 'model')
    .map((s) => s.text)
    .join('')

describe('images to an ACP agent', () => {
  it('that takes images: an image block after the text of session/prompt', async () => {
    const m = await agent({ promptCapabilities: { image: true }, turn: [{ sayPrompt: true }] })
    const steps = await takeTurn(
      t.core,
      { memberId: m.id, text: 'What is this?', images: [pngInput(png)] },
      { timeoutMs: 30_000 },
    )
    expect(said(steps)).toContain(`prompt: text, image image/png ${sha}`)
    expect(steps.some((s) => s.kind === 'notice' && s.text.includes('did not get'))).toBe(false)
  })

  it('that does not: the text only, saying the image was left out, and a notice for the human', async () => {
    const m = await agent({ turn: [{ sayPrompt: true }] })
    const steps = await takeTurn(
      t.core,
      { memberId: m.id, text: 'What is this?', images: [pngInput(png)] },
      { timeoutMs: 30_000 },
    )
    expect(said(steps)).toContain('prompt: text (images left out)\n')
    const notice = steps.find((s) => s.kind === 'notice' && s.text.includes('did not get'))
    expect(notice?.text).toContain('The message carried an image that')
  })

  it('an image-only message says so under its heading, for an agent that takes images and one that does not', async () => {
    for (const image of [true, false]) {
      const m = await t.core.invoke('members.create', {
        workspaceId: t.ws.id,
        name: image ? 'Seeing' : 'Blind',
        role: 'implementer',
        approval: 'auto',
        provider: scriptedProvider({ promptCapabilities: { image }, turn: [{ sayMessage: true }] }),
      })
      const steps = await takeTurn(t.core, { memberId: m.id, text: '', images: [pngInput(png)] }, { timeoutMs: 30_000 })
      expect(said(steps)).toContain(`message: Message from the human | (An image, no text.)`)
    }
  })

  it('a message without images: the text only, no notice', async () => {
    const m = await agent({ turn: [{ sayPrompt: true }] })
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'Hi' }, { timeoutMs: 30_000 })
    expect(said(steps)).toContain('prompt: text\n')
    expect(steps.some((s) => s.kind === 'notice' && s.text.includes('did not get'))).toBe(false)
  })
})
