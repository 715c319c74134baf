import type { Db } from './connection'

/** A task's pull request on the forge (schema 027, pull_requests). */
export interface PullRequestRow {
  task_id: number
  remote: string
  owner: string
  repo: string
  number: number
  url: string
  head_sha: string
  state: 'open' | 'closed' | 'merged'
  ci_state: 'pending' | 'success' | 'failure' | 'none'
  /** JSON: the checks of the head commit as the last refresh found them. */
  checks: string
  /** JSON: the review comments as the last refresh found them. */
  comments: string
  updated_at: string
}

/** The pull requests opened for tasks, one per task (a new one replaces the last). */
export class PullRequestsRepo {
  private readonly s

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[number], PullRequestRow>('SELECT * FROM pull_requests WHERE task_id = ?'),
      put: db.prepare(
        `INSERT INTO pull_requests (task_id, remote, owner, repo, number, url, head_sha, state, ci_state, checks, comments,
           updated_at)
         VALUES (@task_id, @remote, @owner, @repo, @number, @url, @head_sha, @state, @ci_state, @checks, @comments,
           @updated_at)
         ON CONFLICT (task_id) DO UPDATE SET remote = excluded.remote, owner = excluded.owner, repo = excluded.repo,
           number = excluded.number, url = excluded.url, head_sha = excluded.head_sha, state = excluded.state,
           ci_state = excluded.ci_state, checks = excluded.checks, comments = excluded.comments,
           updated_at = excluded.updated_at`,
      ),
      among: db.prepare<[string], PullRequestRow>(
        'SELECT * FROM pull_requests WHERE task_id IN (SELECT value FROM json_each(?))',
      ),
    }
  }

  get(taskId: number): PullRequestRow | undefined {
    return this.s.get.get(taskId)
  }

  put(row: PullRequestRow): void {
    this.s.put.run(row)
  }

  /** The pull requests of these tasks (a board page's cards), by task. */
  among(taskIds: number[]): Map<number, PullRequestRow> {
    return new Map(this.s.among.all(JSON.stringify(taskIds)).map((r) => [r.task_id, r]))
  }
}
