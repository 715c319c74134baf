/** Word-level diff between two revisions of a statement (LCS over tokens; whitespace kept with words). */
import { commonEnds } from '../../../shared/common-ends'

export type DiffPart = { kind: 'same' | 'added' | 'removed'; text: string }

export function tokenize(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? []
}

export function diffWords(before: string, after: string): DiffPart[] {
  const a = tokenize(before)
  const b = tokenize(after)
  // Trim the common head and tail so the quadratic table covers only the changed middle.
  const { head, tail } = commonEnds(a, b)
  const am = a.slice(head, a.length - tail)
  const bm = b.slice(head, b.length - tail)
  const parts: DiffPart[] = []
  const push = (kind: DiffPart['kind'], text: string) => {
    if (!text) return
    const last = parts.at(-1)
    if (last && last.kind === kind) last.text += text
    else parts.push({ kind, text })
  }
  push('same', a.slice(0, head).join(''))
  if (am.length * bm.length > 4_000_000) {
    // Too large to align word by word: show it as a replacement.
    push('removed', am.join(''))
    push('added', bm.join(''))
  } else {
    const n = am.length
    const m = bm.length
    // (n + 1) × (m + 1) cells: every index below is in range, which the loop bounds prove (hence the `!`s).
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
    const at = (i: number, j: number) => lcs[i]![j]!
    for (let i = n - 1; i >= 0; i--) {
      const row = lcs[i]!
      for (let j = m - 1; j >= 0; j--)
        row[j] = am[i] === bm[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1))
    }
    let i = 0
    let j = 0
    while (i < n && j < m) {
      const x = am[i]!
      const y = bm[j]!
      if (x === y) {
        push('same', x)
        i++
        j++
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        push('removed', x)
        i++
      } else {
        push('added', y)
        j++
      }
    }
    push('removed', am.slice(i).join(''))
    push('added', bm.slice(j).join(''))
  }
  push('same', a.slice(a.length - tail).join(''))
  return groupChanges(parts)
}

/**
 * Reads better as "old words → new words" than as alternating single words: changes separated only by
 * whitespace become one removed run followed by one added run.
 */
export function groupChanges(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = []
  let removed = ''
  let added = ''
  const flush = () => {
    if (removed) out.push({ kind: 'removed', text: removed })
    if (added) out.push({ kind: 'added', text: added })
    removed = ''
    added = ''
  }
  parts.forEach((p, i) => {
    if (p.kind === 'removed') removed += p.text
    else if (p.kind === 'added') added += p.text
    else {
      const between = (removed || added) && i < parts.length - 1 && /^\s+$/.test(p.text)
      if (between) {
        removed += p.text
        added += p.text
      } else {
        flush()
        out.push(p)
      }
    }
  })
  flush()
  return out
}
