/**
 * A store-only zip file (no compression): enough for a download of export files, which are small text, without a
 * dependency. Entry names are UTF-8 (general purpose flag bit 11); each file and each file's offset stays below 4 GiB.
 * More than 65,535 entries (an export of 100,000 decisions), or a directory past 4 GiB, end with the ZIP64 end records
 * (APPNOTE 4.3.14-15), which unzip and every current reader take.
 *
 * Written as it goes (issue 32): ZipWriter takes one entry at a time and hands the bytes to a sink in chunks of at
 * most CHUNK bytes, so no whole archive is ever held in memory; only the central directory (one 46-byte record and
 * the name per entry) is kept until the end. A large entry's checksum and bytes go in slices that give the event
 * loop back. The bytes are those of the one-piece writer this replaced (test/unit/zip.test.ts pins them).
 */
import { crc32 as zlibCrc32 } from 'node:zlib'
import { ApiError } from '../../../shared/errors'
import type { Slicer } from './sliced'

export function crc32(buf: Buffer, previous = 0): number {
  return zlibCrc32(buf, previous) >>> 0
}

/** MS-DOS date and time fields (local time, 2-second resolution; zip cannot say before 1980). */
function dosTime(d: Date): { time: number; date: number } {
  const year = Math.max(d.getFullYear(), 1980)
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  }
}

const UTF8_NAMES = 0x0800
const MAX = 0xffffffff

/** Bytes handed to the sink at once (and checksummed between two looks at the slicer). */
const CHUNK = 1024 * 1024

/**
 * Where the zip's bytes go, in order (a file being written). A chunk is the writer's own buffer, reused once the
 * promise resolves: a sink that keeps it copies it.
 */
export type ZipSink = (chunk: Buffer) => Promise<void>

export class ZipWriter {
  private readonly time: number
  private readonly date: number
  /** The central directory so far, in blocks of CHUNK bytes (one allocation per block, not per entry). */
  private readonly directory: Buffer[] = []
  private block = Buffer.alloc(0)
  private blockUsed = 0
  private directoryLength = 0
  /** Bytes waiting for the sink. */
  private readonly stage = Buffer.allocUnsafe(CHUNK)
  private staged = 0
  private readonly local = Buffer.alloc(30)
  private offset = 0
  private count = 0

  constructor(
    private readonly sink: ZipSink,
    private readonly slicer: Slicer,
    modified = new Date(),
  ) {
    ;({ time: this.time, date: this.date } = dosTime(modified))
  }

  /** Entries added so far. */
  get entries(): number {
    return this.count
  }

  private async put(buf: Buffer): Promise<void> {
    if (this.staged + buf.length > CHUNK) await this.flush()
    if (buf.length >= CHUNK) await this.sink(buf)
    else {
      buf.copy(this.stage, this.staged)
      this.staged += buf.length
    }
  }

  private async flush(): Promise<void> {
    if (!this.staged) return
    const chunk = this.stage.subarray(0, this.staged)
    this.staged = 0
    await this.sink(chunk)
  }

  /** Room for `size` more bytes of central directory: the current block, or a new one. */
  private directoryRoom(size: number): Buffer {
    if (this.blockUsed + size > this.block.length) {
      if (this.blockUsed) this.directory.push(this.block.subarray(0, this.blockUsed))
      this.block = Buffer.alloc(Math.max(CHUNK, size))
      this.blockUsed = 0
    }
    return this.block
  }

  /** The checksum of a large buffer, a slice at a time. */
  private async checksum(data: Buffer): Promise<number> {
    if (data.length <= CHUNK) return crc32(data)
    let crc = 0
    for (let at = 0; at < data.length; at += CHUNK) {
      crc = crc32(data.subarray(at, at + CHUNK), crc)
      await this.slicer.tick()
    }
    return crc
  }

  async add(entryName: string, content: string | Buffer): Promise<void> {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const name = this.header(entryName, data.length, await this.checksum(data))
    await this.put(this.local)
    await this.put(name)
    for (let at = 0; at < data.length; at += CHUNK) {
      await this.put(at === 0 && data.length <= CHUNK ? data : data.subarray(at, at + CHUNK))
      if (data.length > CHUNK) await this.slicer.tick()
    }
  }

  /**
   * An entry too large to hold whole, given as the pieces `pieces()` yields, which must yield the same pieces each
   * time: gone through once for its size and checksum (a stored entry's header comes first), then again to write it.
   */
  async addPieces(entryName: string, pieces: () => AsyncIterable<string | Buffer>): Promise<void> {
    let size = 0
    let crc = 0
    for await (const piece of pieces()) {
      const data = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece
      size += data.length
      if (size >= MAX) throw new ApiError('payload_too_large', 'the export is too large for a zip')
      crc = crc32(data, crc)
      await this.slicer.tick()
    }
    const name = this.header(entryName, size, crc)
    await this.put(this.local)
    await this.put(name)
    let written = 0
    let check = 0
    for await (const piece of pieces()) {
      const data = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece
      written += data.length
      check = crc32(data, check)
      await this.put(data)
      await this.slicer.tick()
    }
    if (written !== size || check !== crc) throw new Error(`zip entry ${entryName} changed between its two readings`)
  }

  /** Fills the local header (this.local) and the central record of an entry; its name's bytes. */
  private header(entryName: string, size: number, crc: number): Buffer {
    if (!entryName || entryName.startsWith('/') || entryName.split('/').includes('..'))
      throw new ApiError('invalid_params', `zip entry ${JSON.stringify(entryName)} is not a relative path`)
    const name = Buffer.from(entryName, 'utf8')
    if (size >= MAX || this.offset >= MAX) throw new ApiError('payload_too_large', 'the export is too large for a zip')
    const data = { length: size }
    const local = this.local
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(10, 4) // version needed: 1.0 (stored)
    local.writeUInt16LE(UTF8_NAMES, 6)
    local.writeUInt16LE(0, 8) // method: stored
    local.writeUInt16LE(this.time, 10)
    local.writeUInt16LE(this.date, 12)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)
    const central = this.directoryRoom(46 + name.length)
    const c = this.blockUsed
    central.fill(0, c, c + 46)
    central.writeUInt32LE(0x02014b50, c)
    central.writeUInt16LE(0x031e, c + 4) // made by: Unix, spec 3.0
    central.writeUInt16LE(10, c + 6)
    central.writeUInt16LE(UTF8_NAMES, c + 8)
    central.writeUInt16LE(0, c + 10)
    central.writeUInt16LE(this.time, c + 12)
    central.writeUInt16LE(this.date, c + 14)
    central.writeUInt32LE(crc, c + 16)
    central.writeUInt32LE(data.length, c + 20)
    central.writeUInt32LE(data.length, c + 24)
    central.writeUInt16LE(name.length, c + 28)
    central.writeUInt32LE((0o100644 << 16) >>> 0, c + 38) // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(this.offset, c + 42)
    name.copy(central, c + 46)
    this.blockUsed += 46 + name.length
    this.directoryLength += 46 + name.length
    this.count++
    this.offset += local.length + name.length + data.length
    return name
  }

  /** The central directory and the end records; the sink has every byte once this resolves. */
  async finish(): Promise<void> {
    if (this.blockUsed) this.directory.push(this.block.subarray(0, this.blockUsed))
    for (const part of this.directory) await this.put(part)
    const directoryLength = this.directoryLength
    const entries = this.count
    const offset = this.offset
    const zip64 = entries > 0xfffe || directoryLength >= MAX || offset >= MAX
    const end = Buffer.alloc(22)
    end.writeUInt32LE(0x06054b50, 0)
    end.writeUInt16LE(zip64 ? 0xffff : entries, 8)
    end.writeUInt16LE(zip64 ? 0xffff : entries, 10)
    end.writeUInt32LE(zip64 ? MAX : directoryLength, 12)
    end.writeUInt32LE(zip64 ? MAX : offset, 16)
    if (zip64) {
      const record = Buffer.alloc(56)
      record.writeUInt32LE(0x06064b50, 0)
      record.writeBigUInt64LE(44n, 4) // the record's size after this field
      record.writeUInt16LE(0x032d, 12) // made by: Unix, spec 4.5
      record.writeUInt16LE(45, 14) // version needed: 4.5 (ZIP64)
      record.writeBigUInt64LE(BigInt(entries), 24)
      record.writeBigUInt64LE(BigInt(entries), 32)
      record.writeBigUInt64LE(BigInt(directoryLength), 40)
      record.writeBigUInt64LE(BigInt(offset), 48)
      const locator = Buffer.alloc(20)
      locator.writeUInt32LE(0x07064b50, 0)
      locator.writeBigUInt64LE(BigInt(offset + directoryLength), 8)
      locator.writeUInt32LE(1, 16) // one disk
      await this.put(record)
      await this.put(locator)
    }
    await this.put(end)
    await this.flush()
  }
}
