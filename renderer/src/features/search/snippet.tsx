import { SEARCH_MARK_END, SEARCH_MARK_START } from '../../../../shared/search-marks'
import { markdownToPlain } from '../../lib/plain-text'

/**
 * A search snippet with its matches marked: the core puts each between two private-use characters; never HTML.
 * Its Markdown reads as it renders ("**Fail** the `search`": "Fail the search"), on one line.
 */
export function Snippet({ text }: { text: string }) {
  const parts: { text: string; match: boolean }[] = []
  let rest = markdownToPlain(text).replace(/\s+/g, ' ')
  for (;;) {
    const start = rest.indexOf(SEARCH_MARK_START)
    if (start < 0) break
    const end = rest.indexOf(SEARCH_MARK_END, start)
    if (end < 0) break
    if (start > 0) parts.push({ text: rest.slice(0, start), match: false })
    parts.push({ text: rest.slice(start + 1, end), match: true })
    rest = rest.slice(end + 1)
  }
  if (rest) parts.push({ text: rest, match: false })
  return (
    <span className="search-snippet">
      {parts.map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </span>
  )
}
