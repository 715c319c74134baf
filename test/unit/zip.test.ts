/** The store-only zip writer of the export download, read back with Info-ZIP's unzip. */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { crc32, zipStore } from '../../electron/main/export/zip'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function written(buf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'concord-zip-'))
  dirs.push(dir)
  const file = join(dir, 'a.zip')
  writeFileSync(file, buf)
  return file
}

describe('zipStore', () => {
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
