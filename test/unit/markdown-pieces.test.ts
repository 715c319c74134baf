/**
 * DECISIONS.md in pieces (the export download of a large workspace): renderLogPieces gives renderLog's text byte for
 * byte, whatever the page size, and renderLog itself still writes what it wrote before it was split (pinned by the
 * hashes of its output, taken from the one-piece writer).
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { renderLog, renderLogPieces } from '../../electron/main/export/markdown'
import type { DecisionDoc, ExportDoc } from '../../electron/main/export/schema'
import { exportDocFixture } from '../fixtures/export-doc'

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

async function joined(doc: ExportDoc, pageSize: number, human?: string): Promise<{ text: string; pieces: number }> {
  async function* pages(): AsyncGenerator<DecisionDoc[]> {
    for (let at = 0; at < doc.decisions.length; at += pageSize) yield doc.decisions.slice(at, at + pageSize)
  }
  let text = ''
  let pieces = 0
  for await (const piece of renderLogPieces({ ...doc, decisions: [] }, doc.decisions.length, pages, human)) {
    text += piece
    pieces++
  }
  return { text, pieces }
}

describe('DECISIONS.md', () => {
  it('is what the one-piece writer wrote (pinned by hash)', () => {
    const doc = exportDocFixture()
    const text = renderLog(doc)
    // The fixture reaches every part of the log: superseding, renames, editorial changes, proposals, escaping.
    for (const part of [
      '**Supersedes:** [D-6](#d-6)',
      'by [D-7](#d-7)',
      'Title: “Renamed 10”',
      '· editorial',
      ', proposed by Ada (lead)',
      'Pipe \\| back\\\\slash',
    ])
      expect(text).toContain(part)
    expect(sha256(text)).toBe('ae7b66732d7772fc1ed3a354c106b89974a7e2c8f1390cdc8b28ac0739abf250')
    expect(sha256(renderLog(doc, 'Grace Hopper'))).toBe(
      '91f93aa055f7c2991dda8a54fc006dbcc520e9e27ba36350ced7cc8755c3700c',
    )
    expect(sha256(renderLog({ ...doc, decisions: [] }))).toBe(
      '58a79b207f8548883730fb411b1d1440a195db0e9d3eef7d8bf2f562e450ec63',
    )
    expect(sha256(renderLog(exportDocFixture(1)))).toBe(
      '4f01c2cdb5b3cf99a9c4b980cf988637fb8809d0dc5979ec65f74117810488a8',
    )
  })

  it('comes in pieces, a page of decisions each, byte for byte the one text', async () => {
    const doc = exportDocFixture()
    for (const pageSize of [1, 7, 100, 1000]) {
      const { text, pieces } = await joined(doc, pageSize)
      expect(text).toBe(renderLog(doc))
      // The head, a piece per page for the index, the blank line, a piece per page for the sections.
      expect(pieces).toBe(2 + 2 * Math.ceil(doc.decisions.length / pageSize))
    }
    expect((await joined(doc, 100, 'Grace Hopper')).text).toBe(renderLog(doc, 'Grace Hopper'))
    expect((await joined(exportDocFixture(1), 100)).text).toBe(renderLog(exportDocFixture(1)))
    const none = { ...doc, decisions: [] }
    expect(await joined(none, 100)).toEqual({ text: renderLog(none), pieces: 1 })
  })
})
