/**
 * Long work on the main thread in short slices, so the server keeps answering: an import of 100,000 decisions
 * (parse, check, insert) used to hold the event loop for seconds and every other call waited (connections reset).
 * A Slicer yields to the event loop whenever its budget is spent; parseJsonSliced parses a JSON export element
 * by element from the bytes instead of in one JSON.parse.
 */

/** Milliseconds of work between two yields to the event loop. */
export const SLICE_MS = 8

export class Slicer {
  private start = performance.now()
  /** How often it has yielded (tests and the bench read it). */
  pauses = 0

  constructor(readonly budgetMs = SLICE_MS) {}

  /** True once this slice's budget is spent. */
  due(): boolean {
    return performance.now() - this.start >= this.budgetMs
  }

  /** Yields to the event loop (timers, sockets, other calls) and starts a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.pauses++
    this.start = performance.now()
  }

  /** Yields if the budget is spent. */
  async tick(): Promise<void> {
    if (this.due()) await this.pause()
  }
}

/** Runs a synchronous generator to its end, yielding to the event loop between slices. */
export async function drain(steps: Iterator<unknown>, slicer: Slicer): Promise<void> {
  for (;;) {
    if (steps.next().done) return
    await slicer.tick()
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** Something the element-wise reading does not handle: parse the whole text the ordinary way instead. */
class Unsliceable extends Error {}

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length && isSpace(b[i])) i++
  return i
}

/** The index after the string that starts at b[i] (a quote). UTF-8 continuation bytes are never ASCII. */
function stringEnd(b: Uint8Array, i: number): number {
  for (i++; i < b.length; i++) {
    if (b[i] === BACKSLASH) i++
    else if (b[i] === QUOTE) return i + 1
  }
  throw new Unsliceable()
}

/** The index after the JSON value that starts at b[i] (only its extent: JSON.parse checks it). */
function valueEnd(b: Uint8Array, i: number): number {
  const c = b[i]
  if (c === QUOTE) return stringEnd(b, i)
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0
    for (; i < b.length; i++) {
      const x = b[i]
      if (x === QUOTE) i = stringEnd(b, i) - 1
      else if (x === OPEN_OBJECT || x === OPEN_ARRAY) depth++
      else if (x === CLOSE_OBJECT || x === CLOSE_ARRAY) {
        if (--depth === 0) return i + 1
      }
    }
    throw new Unsliceable()
  }
  const start = i
  while (i < b.length && !isSpace(b[i]) && b[i] !== COMMA && b[i] !== CLOSE_OBJECT && b[i] !== CLOSE_ARRAY) i++
  if (i === start) throw new Unsliceable()
  return i
}

function parsePiece(buf: Buffer, start: number, end: number): unknown {
  return JSON.parse(buf.toString('utf8', start, end))
}

/**
 * The elements of the array or object whose opening bracket is at buf[i], read one by one (`element` reads the one
 * that starts at its index and returns the index after it), with a tick after each: the index after the closing one.
 */
async function eachElement(
  buf: Buffer,
  i: number,
  close: number,
  slicer: Slicer,
  element: (start: number) => number | Promise<number>,
): Promise<number> {
  i = skipSpace(buf, i + 1)
  if (buf[i] === close) return i + 1
  for (;;) {
    const end = await element(i)
    await slicer.tick()
    i = skipSpace(buf, end)
    if (buf[i] === COMMA) i = skipSpace(buf, i + 1)
    else if (buf[i] === close) return i + 1
    else throw new Unsliceable()
  }
}

/** A member's value that starts at buf[i]: an array element by element, anything else in one piece. */
async function memberValue(buf: Buffer, i: number, slicer: Slicer): Promise<{ value: unknown; end: number }> {
  if (buf[i] !== OPEN_ARRAY) {
    const end = valueEnd(buf, i)
    return { value: parsePiece(buf, i, end), end }
  }
  const list: unknown[] = []
  const end = await eachElement(buf, i, CLOSE_ARRAY, slicer, (start) => {
    const after = valueEnd(buf, start)
    list.push(parsePiece(buf, start, after))
    return after
  })
  return { value: list, end }
}

/** A top-level object: its members parsed one by one, and the elements of array members one by one. */
async function parseObjectSliced(buf: Buffer, slicer: Slicer): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  const open = skipSpace(buf, 0)
  if (buf[open] !== OPEN_OBJECT) throw new Unsliceable()
  const end = await eachElement(buf, open, CLOSE_OBJECT, slicer, async (start) => {
    if (buf[start] !== QUOTE) throw new Unsliceable()
    const keyEnd = stringEnd(buf, start)
    const key = parsePiece(buf, start, keyEnd) as string
    const colon = skipSpace(buf, keyEnd)
    if (buf[colon] !== COLON) throw new Unsliceable()
    const { value, end } = await memberValue(buf, skipSpace(buf, colon + 1), slicer)
    // As JSON.parse does: an own property, even for "__proto__"; a repeated key keeps its last value.
    Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
    return end
  })
  if (skipSpace(buf, end) !== buf.length) throw new Unsliceable()
  return out
}

/**
 * JSON.parse of a UTF-8 file's bytes, in slices. Gives what JSON.parse of the decoded text gives, and throws what
 * it throws: anything the element-wise reading does not take (not an object, a byte order mark, a syntax error)
 * is parsed again in one piece, so the error (and its position) is JSON.parse's own.
 */
export async function parseJsonSliced(buf: Buffer, slicer: Slicer): Promise<unknown> {
  // A byte order mark: JSON.parse refuses it; let it say so.
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return JSON.parse(buf.toString('utf8'))
  try {
    return await parseObjectSliced(buf, slicer)
  } catch {
    return JSON.parse(buf.toString('utf8'))
  }
}
