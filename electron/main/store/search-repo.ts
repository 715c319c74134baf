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

/** A decision, task or report whose text matched; s0… are the snippets of its indexed columns, in column order. */
export interface RecordHitRow {
  id: number
  title: string
  status: string
  s0: string
  s1: string | null
  s2: string | null
}

export interface DecisionHistoryHitRow extends RecordHitRow {
  version: number
}

export interface ReportHitRow {
  id: number
  task_id: number
  kind: string
  verdict: string
  /** 'summary' or 'claim': which index matched. */
  field: 'summary' | 'claim'
  s0: string
}

const snip = (table: string, column: number, tokens: number) =>
  `snippet(${table}, ${column}, @start, @end, '…', ${tokens})`

/**
 * Search over the records (the indexes of migration 020): decisions (what they say now, and every revision), tasks,
 * reports and their claims. Each reads its index newest first and stops at the limit; the rows it names are read
 * through their primary keys.
 */
export class RecordSearchRepo {
  private readonly s

  constructor(db: Db) {
    type P = { start: string; end: string; q: string; limit: number }
    this.s = {
      decisions: db.prepare<[P], RecordHitRow>(
        `SELECT d.id, d.title, d.status, ${snip('decisions_fts', 0, 12)} AS s0, ${snip('decisions_fts', 1, 16)} AS s1,
           ${snip('decisions_fts', 2, 16)} AS s2
         FROM decisions_fts JOIN decisions d ON d.id = decisions_fts.rowid
         WHERE decisions_fts MATCH @q ORDER BY decisions_fts.rowid DESC LIMIT @limit`,
      ),
      history: db.prepare<[P], DecisionHistoryHitRow>(
        `SELECT d.id, d.title, d.status, revisions_fts.version AS version, ${snip('revisions_fts', 0, 16)} AS s0,
           NULL AS s1, NULL AS s2
         FROM revisions_fts JOIN decisions d ON d.id = revisions_fts.decision_id
         WHERE revisions_fts MATCH @q ORDER BY revisions_fts.rowid DESC LIMIT @limit`,
      ),
      tasks: db.prepare<[P], RecordHitRow>(
        `SELECT t.id, t.title, t.status, ${snip('tasks_fts', 0, 12)} AS s0, ${snip('tasks_fts', 1, 16)} AS s1,
           ${snip('tasks_fts', 2, 16)} AS s2
         FROM tasks_fts JOIN tasks t ON t.id = tasks_fts.rowid
         WHERE tasks_fts MATCH @q AND t.archived_at IS NULL ORDER BY tasks_fts.rowid DESC LIMIT @limit`,
      ),
      reports: db.prepare<[P], ReportHitRow>(
        `SELECT r.id, r.task_id, r.kind, r.verdict, 'summary' AS field, ${snip('reports_fts', 0, 16)} AS s0
         FROM reports_fts JOIN reports r ON r.id = reports_fts.rowid
         WHERE reports_fts MATCH @q ORDER BY reports_fts.rowid DESC LIMIT @limit`,
      ),
      // A claim's id grows with its report's: newest claims first is newest reports first.
      claims: db.prepare<[P], ReportHitRow>(
        `SELECT r.id, r.task_id, r.kind, r.verdict, 'claim' AS field, ${snip('claims_fts', 0, 16)} AS s0
         FROM claims_fts JOIN claims c ON c.id = claims_fts.rowid JOIN reports r ON r.id = c.report_id
         WHERE claims_fts MATCH @q ORDER BY claims_fts.rowid DESC LIMIT @limit`,
      ),
    }
  }

  private params(q: string, limit: number) {
    return { start: SEARCH_MARK_START, end: SEARCH_MARK_END, q, limit }
  }

  decisions(q: string, limit: number): RecordHitRow[] {
    return this.s.decisions.all(this.params(q, limit))
  }

  /** Revisions whose words match, newest first (a decision may come once per matching revision). */
  decisionHistory(q: string, limit: number): DecisionHistoryHitRow[] {
    return this.s.history.all(this.params(q, limit))
  }

  tasks(q: string, limit: number): RecordHitRow[] {
    return this.s.tasks.all(this.params(q, limit))
  }

  reportSummaries(q: string, limit: number): ReportHitRow[] {
    return this.s.reports.all(this.params(q, limit))
  }

  /** Claims whose words match, newest first (a report may come once per matching claim). */
  reportClaims(q: string, limit: number): ReportHitRow[] {
    return this.s.claims.all(this.params(q, limit))
  }
}
