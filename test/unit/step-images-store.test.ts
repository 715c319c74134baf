/**
 * The session's images in the renderer (issue 35) are kept within a bound: past MAX_IMAGES (or MAX_CHARS of data
 * URLs) the least recently shown that no thumbnail shows now are dropped, and one shown again is read again.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import { MAX_CHARS, MAX_IMAGES, showImage, stepImageKey, useStepImages } from '../../renderer/src/stores/step-images'

let reads: string[] = []
const api = (data = 'AAAA') =>
  ({
    call: async (_method: string, p: { stepId: string; index: number }) => {
      reads.push(stepImageKey(p.stepId, p.index))
      return { mediaType: 'image/png', data }
    },
  }) as unknown as ClientApi
const keys = () => Object.keys(useStepImages.getState().byKey)

beforeEach(() => {
  useStepImages.setState({ byKey: {} })
  reads = []
})

describe('step images store', () => {
  it('reads an image once, keeps at most MAX_IMAGES, dropping the least recently shown', async () => {
    const s = useStepImages.getState()
    for (let i = 0; i < MAX_IMAGES; i++) await s.load(api(), `w1-s${i}`, 0)
    await s.load(api(), 'w1-s0', 0)
    expect(reads).toHaveLength(MAX_IMAGES)
    await s.load(api(), 'w1-new', 0)
    expect(keys()).toHaveLength(MAX_IMAGES)
    expect(keys()).toContain('w1-s0/0')
    expect(keys()).not.toContain('w1-s1/0')
    await s.load(api(), 'w1-s1', 0)
    expect(reads.at(-1)).toBe('w1-s1/0')
  })

  it('keeps at most MAX_CHARS of images, but always the one just shown', async () => {
    const big = 'A'.repeat(Math.ceil(MAX_CHARS / 3))
    const s = useStepImages.getState()
    for (let i = 0; i < 3; i++) await s.load(api(big), `w1-b${i}`, 0)
    expect(keys()).toEqual(['w1-b1/0', 'w1-b2/0'])
    await s.load(api('A'.repeat(MAX_CHARS + 10)), 'w1-huge', 0)
    expect(keys()).toEqual(['w1-huge/0'])
  })

  it('never drops an image a thumbnail shows now', async () => {
    const s = useStepImages.getState()
    const release = showImage('w1-s0/0')
    for (let i = 0; i <= MAX_IMAGES; i++) await s.load(api(), `w1-s${i}`, 0)
    expect(keys()).toContain('w1-s0/0')
    expect(keys()).not.toContain('w1-s1/0')
    expect(keys()).toHaveLength(MAX_IMAGES)
    release()
    await s.load(api(), 'w1-next', 0)
    expect(keys()).not.toContain('w1-s0/0')
  })
})
