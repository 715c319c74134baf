/**
 * The store-only zip writer of the export download, read back with Info-ZIP's unzip. It writes as it goes (issue 32);
 * its bytes are pinned to those of the one-piece writer it replaced (zipStore, before the streaming change).
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Slicer } from '../../electron/main/export/sliced'
import { crc32, ZipWriter } from '../../electron/main/export/zip'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function written(buf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'concord-zip-'))
  dirs.push(dir)
  const file = join(dir, 'a.zip')
  writeFileSync(file, buf)
  return file
}

/** The writer's bytes, in the order it handed them over, and how many pieces they came in. */
async function zipStore(
  entries: { name: string; content: string | Buffer }[],
  modified?: Date,
): Promise<Buffer & { chunks?: number }> {
  const chunks: Buffer[] = []
  const zip = new ZipWriter(async (c) => void chunks.push(Buffer.from(c)), new Slicer(), modified)
  for (const e of entries) await zip.add(e.name, e.content)
  await zip.finish()
  return Object.assign(Buffer.concat(chunks), { chunks: chunks.length })
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const at = new Date(2026, 0, 2, 10, 30, 4)

describe('ZipWriter', () => {
  it('writes the bytes the one-piece writer wrote (pinned from it), in pieces, ZIP64 included', async () => {
    const small = [
      { name: 'docs/decisions/0001-web-search-timeout.md', content: '# Web search timeout\n\nGive up after 10 s.\n' },
      { name: 'docs/decisions/0002-sprache-größe.md', content: 'Größe: “quoted”\n' },
      { name: 'empty.txt', content: '' },
    ]
    expect(sha256(await zipStore(small, at))).toBe('a09ea9dd863e04ff2816ab792a2924037d58be7fe3c65ce2bf44ed7933096f90')
    const many = Array.from({ length: 70_000 }, (_, i) => ({ name: `d/${i}.md`, content: `${i}\n` }))
    const big = await zipStore(many, at)
    expect(sha256(big)).toBe('cae9a17427e2ff758d4202fc7df6b4457c5d901dc32050f45ea7608f554a7868')
    // Handed over as it was built, never as one archive.
    expect(big.chunks).toBeGreaterThan(2)
  })

  it('checksums and writes a large entry in slices, giving the event loop back', async () => {
    const data = Buffer.alloc(5 * 1024 * 1024, 'x')
    const slicer = new Slicer(0)
    const chunks: Buffer[] = []
    const zip = new ZipWriter(async (c) => void chunks.push(Buffer.from(c)), slicer, at)
    await zip.add('big.txt', data)
    await zip.finish()
    expect(slicer.pauses).toBeGreaterThan(2)
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(1024 * 1024 + 64)
    const file = written(Buffer.concat(chunks))
    execFileSync('unzip', ['-tq', file])
    expect(execFileSync('unzip', ['-p', file, 'big.txt'], { maxBuffer: 16 * 1024 * 1024 }).equals(data)).toBe(true)
  })

  it('computes the zip CRC-32', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926)
    expect(crc32(Buffer.alloc(0))).toBe(0)
  })

  it('writes a zip unzip tests, lists and extracts byte for byte, UTF-8 names included', async () => {
    const entries = [
      { name: 'docs/decisions/0001-web-search-timeout.md', content: '# Web search timeout\n\nGive up after 10 s.\n' },
      { name: 'docs/decisions/0002-sprache-größe.md', content: 'Größe: “quoted”\n' },
      { name: 'empty.txt', content: '' },
    ]
    const zip = written(await zipStore(entries, new Date(2026, 0, 2, 10, 30, 4)))
    execFileSync('unzip', ['-tq', zip])
    expect(execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n')).toEqual(
      entries.map((e) => e.name),
    )
    for (const e of entries) expect(execFileSync('unzip', ['-p', zip, e.name], { encoding: 'utf8' })).toBe(e.content)
    expect(execFileSync('unzip', ['-l', zip], { encoding: 'utf8' })).toMatch(/(2026-01-02|01-02-2026) 10:30/)
  })

  it('refuses an entry that is not a relative path', async () => {
    for (const name of ['/etc/passwd', '../up.md', 'a/../../b', ''])
      await expect(zipStore([{ name, content: 'x' }])).rejects.toMatchObject({ code: 'invalid_params' })
  })

  it('holds more than 65,535 files (ZIP64 end records), each listed by unzip', async () => {
    const entries = Array.from({ length: 70_000 }, (_, i) => ({ name: `d/${i}.md`, content: `${i}\n` }))
    const zip = written(await zipStore(entries))
    execFileSync('unzip', ['-tq', zip], { maxBuffer: 64 * 1024 * 1024 })
    const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    expect(names.trim().split('\n')).toEqual(entries.map((e) => e.name))
    expect(execFileSync('unzip', ['-p', zip, 'd/69999.md'], { encoding: 'utf8' })).toBe('69999\n')
  })
})
