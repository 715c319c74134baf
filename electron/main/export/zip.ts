/**
 * A store-only zip file (no compression): enough for a download of export files, which are small text, without a
 * dependency. Entry names are UTF-8 (general purpose flag bit 11); each file and each file's offset stays below 4 GiB.
 * More than 65,535 entries (an export of 100,000 decisions), or a directory past 4 GiB, end with the ZIP64 end records
 * (APPNOTE 4.3.14-15), which unzip and every current reader take. Built in slices that give the event loop back.
 */
import { ApiError } from '../../../shared/errors'

export interface ZipEntry {
  /** A relative path with `/` separators. */
  name: string
  content: string | Buffer
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

export function crc32(buf: Buffer): number {
  let c = 0xffffffff
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
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

/** Entries packed between two turns of the event loop. */
const SLICE = 1000

export async function zipStore(entries: ZipEntry[], modified = new Date()): Promise<Buffer> {
  const { time, date } = dosTime(modified)
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const [i, e] of entries.entries()) {
    if (i > 0 && i % SLICE === 0) await new Promise((r) => setImmediate(r))
    if (!e.name || e.name.startsWith('/') || e.name.split('/').includes('..'))
      throw new ApiError('invalid_params', `zip entry ${JSON.stringify(e.name)} is not a relative path`)
    const name = Buffer.from(e.name, 'utf8')
    const data = typeof e.content === 'string' ? Buffer.from(e.content, 'utf8') : e.content
    if (data.length >= MAX || offset >= MAX)
      throw new ApiError('payload_too_large', 'the export is too large for a zip')
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(10, 4) // version needed: 1.0 (stored)
    local.writeUInt16LE(UTF8_NAMES, 6)
    local.writeUInt16LE(0, 8) // method: stored
    local.writeUInt16LE(time, 10)
    local.writeUInt16LE(date, 12)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(0x031e, 4) // made by: Unix, spec 3.0
    central.writeUInt16LE(10, 6)
    central.writeUInt16LE(UTF8_NAMES, 8)
    central.writeUInt16LE(0, 10)
    central.writeUInt16LE(time, 12)
    central.writeUInt16LE(date, 14)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38) // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, data)
    centrals.push(central, name)
    offset += local.length + name.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const zip64 = entries.length > 0xfffe || directory.length >= MAX || offset >= MAX
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 8)
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 10)
  end.writeUInt32LE(zip64 ? MAX : directory.length, 12)
  end.writeUInt32LE(zip64 ? MAX : offset, 16)
  if (!zip64) return Buffer.concat([...locals, directory, end])
  const record = Buffer.alloc(56)
  record.writeUInt32LE(0x06064b50, 0)
  record.writeBigUInt64LE(44n, 4) // the record's size after this field
  record.writeUInt16LE(0x032d, 12) // made by: Unix, spec 4.5
  record.writeUInt16LE(45, 14) // version needed: 4.5 (ZIP64)
  record.writeBigUInt64LE(BigInt(entries.length), 24)
  record.writeBigUInt64LE(BigInt(entries.length), 32)
  record.writeBigUInt64LE(BigInt(directory.length), 40)
  record.writeBigUInt64LE(BigInt(offset), 48)
  const locator = Buffer.alloc(20)
  locator.writeUInt32LE(0x07064b50, 0)
  locator.writeBigUInt64LE(BigInt(offset + directory.length), 8)
  locator.writeUInt32LE(1, 16) // one disk
  return Buffer.concat([...locals, directory, record, locator, end])
}
