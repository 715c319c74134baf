/**
 * Images in the composer (issue 35): a pasted screenshot or dropped image files wait above the text as thumbnails,
 * each with its ×; too many or too large say so in the server's words (imagesProblem) and nothing is sent.
 */
import { useMemo, useState, type ClipboardEvent, type DragEvent } from 'react'
import { imagesProblem, type ImageProblem } from '../../../../shared/images'
import {
  imageUrl,
  notImagesNote,
  readAttachment,
  sortFiles,
  transferFiles,
  type Attachment,
} from '../../lib/image-files'
import { attachmentsOf, useAttachments } from '../../stores/attachments'

const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer.types).includes('Files')

/** The member's waiting images, why they cannot go (or null), and the paste and drop handlers that add to them. */
export function useComposerImages(memberId: string) {
  const images = useAttachments(attachmentsOf(memberId))
  const [note, setNote] = useState<string | null>(null)
  const [dropping, setDropping] = useState(false)
  // Checked once per change of the images, not at every keystroke (the check reads megabytes of base64).
  const problem = useMemo(() => (images.length ? imagesProblem(images) : null), [images])

  const take = (files: File[]) => {
    const { images: found, others } = sortFiles(files)
    setNote(notImagesNote(others))
    if (!found.length) return
    void Promise.all(found.map(readAttachment)).then(
      (read) => useAttachments.getState().add(memberId, read),
      (err: unknown) => setNote(`The image could not be read: ${err instanceof Error ? err.message : String(err)}`),
    )
  }

  const handlers = {
    onPaste(e: ClipboardEvent) {
      const files = transferFiles(e.clipboardData)
      if (!files.length) return // text pastes as text
      e.preventDefault()
      take(files)
    },
    onDragOver(e: DragEvent) {
      if (!hasFiles(e)) return
      e.preventDefault()
      e.dataTransfer.dropEffect = 'copy'
      setDropping(true)
    },
    onDragLeave() {
      setDropping(false)
    },
    onDrop(e: DragEvent) {
      setDropping(false)
      const files = transferFiles(e.dataTransfer)
      if (!files.length) return // dropped text goes into the box as the browser does it
      e.preventDefault()
      take(files)
    },
  }
  return {
    images,
    problem,
    note,
    dropping,
    handlers,
    /** Takes the sent images out (those added while sending stay). */
    sent: (ids: string[]) => useAttachments.getState().remove(memberId, ids),
  }
}

/** The thumbnails above the text, each with its remove button, and what stops them going. */
export function ComposerImages({
  memberId,
  images,
  problem,
  note,
}: {
  memberId: string
  images: Attachment[]
  problem: ImageProblem | null
  note: string | null
}) {
  const remove = useAttachments((s) => s.remove)
  if (!images.length && !note) return null
  return (
    <div className="composer-images" data-testid="composer-images">
      {images.length > 0 && (
        <div className="composer-thumbs">
          {images.map((img) => (
            <div className="composer-thumb" key={img.id} data-testid="composer-thumb" title={img.name}>
              <img src={imageUrl(img)} alt={img.name} />
              <button
                className="thumb-remove"
                aria-label={`Remove ${img.name}`}
                data-testid="composer-thumb-remove"
                onClick={() => remove(memberId, [img.id])}
              >
                ×
              </button>
            </div>
          ))}
        </div>
      )}
      {problem && (
        <div className="error-text" role="alert" data-testid="composer-images-problem">
          {problem.message}. {problem.code === 'payload_too_large' ? 'Remove some to send.' : 'Remove it to send.'}
        </div>
      )}
      {note && <div className="composer-hint">{note}</div>}
    </div>
  )
}
