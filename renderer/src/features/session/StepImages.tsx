/**
 * The images a message carried (issue 35), under its text: thumbnails read through sessions.image, each opening the
 * image at full size in a dialog.
 */
import { useEffect, useState } from 'react'
import { Modal } from '../../components/ui'
import { useApp } from '../../stores/app-store'
import { showImage, stepImageKey, useStepImages } from '../../stores/step-images'

function Thumb({ stepId, index, onOpen }: { stepId: string; index: number; onOpen(url: string): void }) {
  const api = useApp((s) => s.api)
  const image = useStepImages((s) => s.byKey[stepImageKey(stepId, index)])
  // Read when shown; kept while shown (the store's bound drops only images no thumbnail shows).
  useEffect(() => {
    const release = showImage(stepImageKey(stepId, index))
    void useStepImages.getState().load(api, stepId, index)
    return release
  }, [api, stepId, index])
  const label = `Image ${index + 1}`
  if (image && 'error' in image)
    return (
      <div className="step-thumb step-thumb-missing" title={image.error} data-testid="step-image-error">
        {label} could not be read
      </div>
    )
  const url = image && 'url' in image ? image.url : null
  return (
    <button
      className="step-thumb"
      aria-label={`Open ${label.toLowerCase()} at full size`}
      disabled={!url}
      onClick={() => url && onOpen(url)}
      data-testid="step-image"
      data-loaded={url ? 'true' : 'false'}
    >
      {url && <img src={url} alt={label} />}
    </button>
  )
}

export function StepImages({ stepId, count }: { stepId: string; count: number | undefined }) {
  const [open, setOpen] = useState<{ url: string; index: number } | null>(null)
  if (!count) return null
  return (
    <div className="step-images" data-testid="step-images">
      {Array.from({ length: count }, (_, index) => (
        <Thumb key={index} stepId={stepId} index={index} onOpen={(url) => setOpen({ url, index })} />
      ))}
      {open && (
        <Modal title={`Image ${open.index + 1} of ${count}`} onClose={() => setOpen(null)} wide>
          <img
            className="step-image-full"
            src={open.url}
            alt={`Image ${open.index + 1}`}
            data-testid="step-image-full"
          />
        </Modal>
      )}
    </div>
  )
}
