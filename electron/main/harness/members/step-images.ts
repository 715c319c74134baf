/** The images a step carries (issue 35), as the session shows them: one at a time, its bytes in base64. */
import { ApiError } from '../../../../shared/errors'
import type { ImageMediaType } from '../../../../shared/images'
import type { Ctx } from '../context'
import { parseId } from '../ids'

export function stepImage(ctx: Ctx, stepId: string, index: number): { mediaType: ImageMediaType; data: string } {
  const img = ctx.store.stepImages.get(parseId(stepId, 'step', 'stepId').n, index)
  if (!img) throw new ApiError('not_found', `step ${stepId} has no image ${index}`)
  return { mediaType: img.media_type, data: img.data.toString('base64') }
}
