/**
 * Push and pull request (issue 33): the pull request opened on the forge for a task, on the user's action.
 *
 * - pull_requests: one row per task (its latest PR): the remote pushed to, the forge's owner/repo, the PR's number,
 *   link and head commit; its state (open, closed, merged) and its CI (combined status and check runs: pending,
 *   success, failure, none) as the last refresh found them, with the checks and the review comments (JSON) the card
 *   shows. Refreshed on the user's action and when the card opens; never polled.
 */
export const up = `
CREATE TABLE pull_requests (
  task_id INTEGER PRIMARY KEY REFERENCES tasks(id),
  remote TEXT NOT NULL,
  owner TEXT NOT NULL,
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  url TEXT NOT NULL,
  head_sha TEXT NOT NULL,
  state TEXT NOT NULL,
  ci_state TEXT NOT NULL,
  checks TEXT NOT NULL DEFAULT '[]',
  comments TEXT NOT NULL DEFAULT '[]',
  updated_at TEXT NOT NULL
) STRICT;
`
