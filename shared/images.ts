/**
 * Images in prompts (issue 35): what a message may carry, checked on both sides (the composer before it sends, the
 * API when it receives). An image is its media type and its bytes in base64; the bytes must be of the type it names.
 */
import type { ErrorCode } from './errors'

export const imageMediaTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
export type ImageMediaType = (typeof imageMediaTypes)[number]

export interface ImageInput {
  mediaType: ImageMediaType
  /** The bytes, base64 (no data: prefix). */
  data: string
}

/** Each image at most this many bytes (the providers' own limit is 5 MB an image). */
export const maxImageBytes = 5 * 1024 * 1024
/** All images of one message together (their base64 fits the browser bridge's 10 MiB body). */
export const maxMessageImageBytes = 7 * 1024 * 1024
export const maxImagesPerMessage = 8

/** How long the base64 text of this many bytes is. */
export const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4

/** How many bytes the base64 text holds. */
export function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.floor((data.length * 3) / 4) - pad
}

/** The first bytes of each type (webp: RIFF....WEBP, checked in two parts). */
const signatures: Record<ImageMediaType, (b: Uint8Array) => boolean> = {
  'image/png': (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => String.fromCharCode(...b.slice(0, 4)) === 'GIF8',
  'image/webp': (b) =>
    String.fromCharCode(...b.slice(0, 4)) === 'RIFF' && String.fromCharCode(...b.slice(8, 12)) === 'WEBP',
}

function head(data: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(data.slice(0, 16)), (c) => c.charCodeAt(0))
  } catch {
    return null
  }
}

export interface ImageProblem {
  code: Extract<ErrorCode, 'payload_too_large' | 'image_unsupported'>
  message: string
}

/** Why these images cannot go with a message, or null. `mediaType` is what the sender says (checked here too). */
export function imagesProblem(images: { mediaType: string; data: string }[]): ImageProblem | null {
  if (images.length > maxImagesPerMessage)
    return { code: 'payload_too_large', message: `images: at most ${maxImagesPerMessage} images a message` }
  let total = 0
  for (const [i, img] of images.entries()) {
    const at = `images[${i}]`
    if (!(imageMediaTypes as readonly string[]).includes(img.mediaType))
      return {
        code: 'image_unsupported',
        message: `${at}: ${img.mediaType || 'no type'} is not an image type Concord sends (PNG, JPEG, GIF or WebP)`,
      }
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(img.data) || img.data.length % 4 !== 0)
      return { code: 'image_unsupported', message: `${at}: the data is not base64` }
    const bytes = head(img.data)
    if (!bytes || !signatures[img.mediaType as ImageMediaType](bytes))
      return { code: 'image_unsupported', message: `${at}: the bytes are not a ${img.mediaType} image` }
    const size = base64Bytes(img.data)
    if (size > maxImageBytes)
      return { code: 'payload_too_large', message: `${at}: ${mb(size)} is more than ${mb(maxImageBytes)} an image` }
    total += size
  }
  if (total > maxMessageImageBytes)
    return {
      code: 'payload_too_large',
      message: `images: ${mb(total)} together is more than ${mb(maxMessageImageBytes)} a message`,
    }
  return null
}

const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`
