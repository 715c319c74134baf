/**
 * Images pasted or dropped into the composer (issue 35): read into base64 byte for byte (megabytes too), image files
 * told from the others, and what the composer says about files that are not images.
 */
import { describe, expect, it } from 'vitest'
import { imagesProblem, maxImagesPerMessage } from '../../shared/images'
import { notImagesNote, readAttachment, sortFiles, toBase64 } from '../../renderer/src/lib/image-files'
import { solidPng } from '../fixtures/images'

describe('composer images', () => {
  it('base64 of the bytes, as Node writes it, for a few bytes and for megabytes', () => {
    for (const n of [0, 1, 2, 3, 0x8000 - 1, 0x8000 + 1, 3 * 1024 * 1024 + 7]) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) % 256))
      expect(toBase64(new Uint8Array(bytes))).toBe(bytes.toString('base64'))
    }
  })

  it('a pasted screenshot becomes what sessions.send takes, and the server check accepts it', async () => {
    const png = solidPng(3, 2, [10, 20, 30])
    const a = await readAttachment(new File([new Uint8Array(png)], 'image.png', { type: 'image/png' }))
    expect(a).toMatchObject({ name: 'image.png', mediaType: 'image/png', data: png.toString('base64') })
    expect(imagesProblem([a])).toBeNull()
    const b = await readAttachment(new File([new Uint8Array(png)], 'image.png', { type: 'image/png' }))
    expect(b.id).not.toBe(a.id)
    // One too many: the words the server would say.
    expect(imagesProblem(Array.from({ length: maxImagesPerMessage + 1 }, () => a))?.message).toBe(
      `images: at most ${maxImagesPerMessage} images a message`,
    )
  })

  it('image files are attached, others named in a note', () => {
    const files = [
      new File(['x'], 'shot.png', { type: 'image/png' }),
      new File(['x'], 'notes.txt', { type: 'text/plain' }),
      new File(['x'], 'old.bmp', { type: 'image/bmp' }),
      new File(['x'], 'spec.pdf', { type: 'application/pdf' }),
    ]
    const { images, others } = sortFiles(files)
    expect(images.map((f) => f.name)).toEqual(['shot.png', 'old.bmp'])
    expect(others).toEqual(['notes.txt', 'spec.pdf'])
    expect(notImagesNote(others)).toBe('notes.txt, spec.pdf are not images: only images go with a message.')
    expect(notImagesNote(['a.txt'])).toBe('a.txt is not an image: only images go with a message.')
    expect(notImagesNote([])).toBeNull()
  })
})
