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
    const last = parts[parts.length - 1]
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
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i][j] = am[i] === bm[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1])
    let i = 0
    let j = 0
    while (i < n && j < m) {
      if (am[i] === bm[j]) {
        push('same', am[i])
        i++
        j++
      } else if (lcs[i + 1][j] >= lcs[i][j + 1]) push('removed', am[i++])
      else push('added', bm[j++])
    }
    while (i < n) push('removed', am[i++])
    while (j < m) push('added', bm[j++])
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
