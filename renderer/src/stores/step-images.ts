/**
 * The images of the session's steps (issue 35), read once each through sessions.image and kept: a step's images never
 * change. Keyed `stepId/index`; a failed read keeps its error so the thumbnail says so instead of reading again.
 * Bounded: past MAX_IMAGES, or MAX_CHARS of data URLs, the least recently shown that no thumbnail shows now are
 * dropped (shown again, one is read again), so a long session's screenshots do not pile up in the renderer.
 */
import { create } from 'zustand'
import type { ClientApi } from '../api/bridge-client'
import { asClientError } from '../api/errors'
import { imageUrl } from '../lib/image-files'

export type StepImage = { url: string } | { error: string } | { loading: true }

interface StepImagesState {
  /** In order of last use, the least recent first. */
  byKey: Record<string, StepImage>
  load(api: ClientApi, stepId: string, index: number): Promise<void>
}

export const MAX_IMAGES = 120
/** About 72 MB of base64 (UTF-16 strings: twice that in memory at most). */
export const MAX_CHARS = 72 * 1024 * 1024

export const stepImageKey = (stepId: string, index: number) => `${stepId}/${index}`

const size = (i: StepImage) => ('url' in i ? i.url.length : 0)

/** How many thumbnails show each image now: those are never dropped (a drop would only read them again). */
const shown = new Map<string, number>()

/** A thumbnail shows the image from now until the returned function is called. */
export function showImage(key: string): () => void {
  shown.set(key, (shown.get(key) ?? 0) + 1)
  return () => {
    const n = (shown.get(key) ?? 1) - 1
    if (n > 0) shown.set(key, n)
    else shown.delete(key)
  }
}

/** The entries with `key` last, then the least recently used not on screen dropped while over a bound. */
function bounded(byKey: Record<string, StepImage>, key: string, value: StepImage): Record<string, StepImage> {
  const { [key]: _, ...rest } = byKey
  const entries = [...Object.entries(rest), [key, value] as const]
  let count = entries.length
  let chars = entries.reduce((n, [, i]) => n + size(i), 0)
  const kept = entries.filter(([k, i]) => {
    if (k === key || shown.has(k) || (count <= MAX_IMAGES && chars <= MAX_CHARS)) return true
    count--
    chars -= size(i)
    return false
  })
  return Object.fromEntries(kept)
}

export const useStepImages = create<StepImagesState>((set, get) => ({
  byKey: {},
  async load(api, stepId, index) {
    const key = stepImageKey(stepId, index)
    const put = (value: StepImage) => set((s) => ({ byKey: bounded(s.byKey, key, value) }))
    const had = get().byKey[key]
    // Shown again: it becomes the most recently used.
    if (had) {
      put(had)
      return
    }
    put({ loading: true })
    try {
      put({ url: imageUrl(await api.call('sessions.image', { stepId, index })) })
    } catch (err) {
      put({ error: asClientError(err).message })
    }
  },
}))
