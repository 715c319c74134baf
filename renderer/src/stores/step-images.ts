/**
 * The images of the session's steps (issue 35), read once each through sessions.image and kept: a step's images never
 * change. Keyed `stepId/index`; a failed read keeps its error so the thumbnail says so instead of reading again.
 */
import { create } from 'zustand'
import type { ClientApi } from '../api/bridge-client'
import { asClientError } from '../api/errors'
import { imageUrl } from '../lib/image-files'

export type StepImage = { url: string } | { error: string } | { loading: true }

interface StepImagesState {
  byKey: Record<string, StepImage>
  load(api: ClientApi, stepId: string, index: number): Promise<void>
}

export const stepImageKey = (stepId: string, index: number) => `${stepId}/${index}`

export const useStepImages = create<StepImagesState>((set, get) => ({
  byKey: {},
  async load(api, stepId, index) {
    const key = stepImageKey(stepId, index)
    if (get().byKey[key]) return
    const put = (value: StepImage) => set((s) => ({ byKey: { ...s.byKey, [key]: value } }))
    put({ loading: true })
    try {
      put({ url: imageUrl(await api.call('sessions.image', { stepId, index })) })
    } catch (err) {
      put({ error: asClientError(err).message })
    }
  },
}))
