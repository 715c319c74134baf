/**
 * The images waiting in the composer (issue 35) are kept per member: another member's composer never shows or sends
 * them, and taking out the sent ones leaves any added while the message was going.
 */
import { describe, expect, it } from 'vitest'
import type { Attachment } from '../../renderer/src/lib/image-files'
import { attachmentsOf, useAttachments } from '../../renderer/src/stores/attachments'

const img = (id: string): Attachment => ({ id, name: `${id}.png`, mediaType: 'image/png', data: 'AAAA' })

describe('composer attachments store', () => {
  it('keeps each member its own images; removing the sent ones keeps the later ones', () => {
    const s = useAttachments.getState()
    s.add('w1-m1', [img('a'), img('b')])
    s.add('w1-m2', [img('c')])
    s.add('w1-m1', [img('d')])
    const of = (m: string) => attachmentsOf(m)(useAttachments.getState()).map((a) => a.id)
    expect(of('w1-m1')).toEqual(['a', 'b', 'd'])
    expect(of('w1-m2')).toEqual(['c'])
    useAttachments.getState().remove('w1-m1', ['a', 'b'])
    expect(of('w1-m1')).toEqual(['d'])
    expect(of('w1-m2')).toEqual(['c'])
    // A member with none gets the same empty list each time (a stable selector result).
    expect(attachmentsOf('w1-m9')(useAttachments.getState())).toBe(attachmentsOf('w1-m8')(useAttachments.getState()))
  })
})
