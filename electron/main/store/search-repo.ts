import { SEARCH_MARK_END, SEARCH_MARK_START } from '../../../shared/schemas'
import type { Db } from './connection'

export interface SearchHitRow {
  id: number
  member_id: number
  kind: string
  started_at: string
  snippet: string
}

/**
 * Turns what a person typed into an FTS5 query that cannot be a syntax error: every word becomes a quoted
 * phrase (so AND, OR, NOT, NEAR, `*`, `:`, `^` and parentheses are just text), the words must all match, and
 * the last one matches as a prefix (results while typing). Null when nothing searchable is left.
 */
export function ftsQuery(text: string): string | null {
  // A "word" with no letter or digit is punctuation the tokenizer drops anyway; a phrase of it matches nothing.
  const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w))
  if (!words.length) return null
  return words.map((w, i) => `"${w.replaceAll('"', '""')}"${i === words.length - 1 ? '*' : ''}`).join(' ')
}

/** Search over step text (the steps_fts index of migration 010). */
export class SearchRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      // Newest first. Steps of an earlier conversation (before sessions.reset) and of archived members are left
      // out: neither can be opened in a session any more.
      search: db.prepare<[string, string, string, number], SearchHitRow>(
        `SELECT s.id, s.member_id, s.kind, s.started_at, snippet(steps_fts, 0, ?, ?, '…', 16) AS snippet
         FROM steps_fts JOIN steps s ON s.id = steps_fts.rowid JOIN members m ON m.id = s.member_id
         WHERE steps_fts MATCH ? AND m.archived_at IS NULL AND s.id > m.session_start
         ORDER BY steps_fts.rowid DESC LIMIT ?`,
      ),
    }
  }

  search(query: string, limit: number): SearchHitRow[] {
    return this.s.search.all(SEARCH_MARK_START, SEARCH_MARK_END, query, limit)
  }
}
