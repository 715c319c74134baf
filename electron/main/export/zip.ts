/**
 * A store-only zip file (no compression): enough for a download of export files, which are small text, without a
 * dependency. Entry names are UTF-8 (general purpose flag bit 11); sizes stay below 4 GiB (no ZIP64), and at most
 * 65,535 entries.
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

export function zipStore(entries: ZipEntry[], modified = new Date()): Buffer {
  if (entries.length > 0xffff) throw new ApiError('payload_too_large', `a zip holds at most 65535 files here`)
  const { time, date } = dosTime(modified)
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const e of entries) {
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
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}
