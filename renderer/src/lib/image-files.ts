/**
 * Images a person pastes or drops into the composer (issue 35), read into what sessions.send takes: the type the
 * file says and its bytes in base64. Whether they may go is shared/images.ts's `imagesProblem` (the server's words).
 */

/** An image waiting in the composer: what goes (mediaType, data) and what the thumbnail shows. */
export interface Attachment {
  id: string
  name: string
  mediaType: string
  /** The bytes, base64 (no data: prefix). */
  data: string
}

/** A data: URL that shows the image (thumbnails and the full-size view). */
export const imageUrl = (i: { mediaType: string; data: string }) => `data:${i.mediaType};base64,${i.data}`

/** Base64 of the bytes, in slices (String.fromCharCode of megabytes at once overflows the call stack). */
export function toBase64(bytes: Uint8Array): string {
  let text = ''
  for (let i = 0; i < bytes.length; i += 0x8000)
    text += String.fromCharCode(...bytes.subarray(i, Math.min(i + 0x8000, bytes.length)))
  return btoa(text)
}

/**
 * The files of a paste or a drop: those of an image type (any: one Concord does not send is refused in the server's
 * words), and the names of the others, which are not attached.
 */
export function sortFiles(files: readonly File[]): { images: File[]; others: string[] } {
  const images = files.filter((f) => f.type.startsWith('image/'))
  const others = files.filter((f) => !f.type.startsWith('image/')).map((f) => f.name || 'a file')
  return { images, others }
}

/** What the composer says about files that are not images. */
export function notImagesNote(names: string[]): string | null {
  if (!names.length) return null
  return `${names.join(', ')} ${names.length === 1 ? 'is not an image' : 'are not images'}: only images go with a message.`
}

/** The files a DataTransfer carries (a paste's clipboard, a drop). */
export const transferFiles = (dt: DataTransfer | null): File[] => (dt ? Array.from(dt.files) : [])

let next = 0
/** Reads a file into an attachment. */
export async function readAttachment(file: File): Promise<Attachment> {
  const data = toBase64(new Uint8Array(await file.arrayBuffer()))
  next += 1
  return { id: `a${next}`, name: file.name || 'pasted image', mediaType: file.type, data }
}
