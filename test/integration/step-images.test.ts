/**
 * Images in prompts (issue 35): sessions.send takes screenshots with the message and keeps them with its step, on a
 * real SQLite file; sessions.image gives each back. An image of another type, or whose bytes are not the type it
 * names, is refused with image_unsupported, too many or too large with payload_too_large, and nothing is stored then.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { maxImageBytes } from '../../shared/images'
import { rejectsWith } from '../fixtures/core'
import { sessionState, takeTurn } from '../fixtures/sessions'
import { pngInput, solidPng } from '../fixtures/images'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let memberId = ''
beforeEach(async () => {
  t = await workspaceWithTeam({ members: ['Ivy'], core: { provider: { maxRetries: 0 } } })
  memberId = t.members[0]!.id
})
afterEach(() => t.cleanup())

const steps = async () => (await t.core.invoke('sessions.get', { memberId })).steps

describe('sessions.send with images', () => {
  it('keeps the images with the user step, in order, byte for byte', async () => {
    const red = solidPng(3, 2, [255, 0, 0])
    const blue = solidPng(2, 2, [0, 0, 255])
    t.server.enqueue({ text: 'Seen.' })
    const after = await takeTurn(t.core, {
      memberId,
      text: 'What is wrong here?',
      images: [pngInput(red), pngInput(blue)],
    })
    const step = after.find((s) => s.kind === 'user')!
    const stepId = step.id
    expect(step.images).toBe(2)
    expect(await t.core.invoke('sessions.image', { stepId, index: 0 })).toEqual(pngInput(red))
    expect(await t.core.invoke('sessions.image', { stepId, index: 1 })).toEqual(pngInput(blue))
    await rejectsWith(t.core.invoke('sessions.image', { stepId, index: 2 }), 'not_found')
  })

  it('images alone are a message; no text and no images is refused', async () => {
    const red = pngInput(solidPng(1, 1, [255, 0, 0]))
    t.server.enqueue({ text: 'Seen.' })
    const after = await takeTurn(t.core, { memberId, text: '', images: [red] })
    const step = after.find((s) => s.kind === 'user')!
    expect(step).toMatchObject({ text: '', images: 1 })
    const e = await rejectsWith(t.core.invoke('sessions.send', { memberId, text: ' ', images: [] }), 'invalid_params')
    expect(e.message).toContain('text: must not be empty')
    expect((await steps()).filter((s) => s.kind === 'user')).toHaveLength(1)
  })

  it('a message without images has none', async () => {
    t.server.enqueue({ text: 'Hi.' })
    const after = await takeTurn(t.core, { memberId, text: 'Hello' })
    expect(after.find((s) => s.kind === 'user')!.images).toBeUndefined()
  })

  it('refuses an image of another type, or bytes not of the type named, and stores nothing', async () => {
    const png = solidPng(1, 1, [0, 0, 0]).toString('base64')
    const send = (images: { mediaType: string; data: string }[]) =>
      t.core.invoke('sessions.send', { memberId, text: 'Look', images })
    const bmp = await rejectsWith(send([{ mediaType: 'image/bmp', data: png }]), 'image_unsupported')
    expect(bmp.message).toContain('image/bmp is not an image type')
    const lie = await rejectsWith(send([{ mediaType: 'image/jpeg', data: png }]), 'image_unsupported')
    expect(lie.message).toContain('not a image/jpeg image')
    await rejectsWith(send([{ mediaType: 'image/png', data: 'not base64!' }]), 'image_unsupported')
    expect(await steps()).toEqual([])
  })

  it('refuses an image over the size limit with payload_too_large, and stores nothing', async () => {
    const big = Buffer.concat([solidPng(1, 1, [0, 0, 0]), Buffer.alloc(maxImageBytes)])
    const e = await rejectsWith(
      t.core.invoke('sessions.send', { memberId, text: 'Look', images: [pngInput(big)] }),
      'payload_too_large',
    )
    expect(e.message).toContain('images[0]')
    expect(await steps()).toEqual([])
  })

  it('a failed turn retried carries its images again', async () => {
    const green = pngInput(solidPng(2, 1, [0, 255, 0]))
    t.server.enqueue({ status: 500, headers: { 'x-should-retry': 'false' }, errorMessage: 'down' }, { text: 'Seen.' })
    const failed = sessionState(t.core, memberId, 'error', { queued: 'any' })
    await t.core.invoke('sessions.send', { memberId, text: 'This one', images: [green] })
    await failed
    const idle = sessionState(t.core, memberId, 'idle')
    await t.core.invoke('sessions.retry', { memberId })
    await idle
    const users = (await steps()).filter((s) => s.kind === 'user')
    expect(users).toHaveLength(2)
    expect(users[1]!.images).toBe(1)
    expect(await t.core.invoke('sessions.image', { stepId: users[1]!.id, index: 0 })).toEqual(green)
  })
})
