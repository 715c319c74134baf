/** A runner as a settings form holds it until saved: the choice, and the host and image as typed (issue 36). */
import type { Runner } from '../../../../shared/runners'

/** `default`: the member names no runner and runs on the workspace's (offered in the member editor only). */
export type RunnerChoice = 'default' | Runner['kind']

export interface RunnerDraft {
  choice: RunnerChoice
  host: string
  image: string
}

export function runnerDraft(runner: Runner | null): RunnerDraft {
  return {
    choice: runner ? runner.kind : 'default',
    host: runner?.kind === 'ssh' ? runner.host : '',
    image: runner?.kind === 'container' ? runner.image : '',
  }
}

/** What the form saves: sent as typed, so that the server names a bad host or image rather than the form guessing. */
export function runnerOfDraft(d: RunnerDraft): Runner | null {
  switch (d.choice) {
    case 'default':
      return null
    case 'local':
      return { kind: 'local' }
    case 'ssh':
      return { kind: 'ssh', host: d.host }
    case 'container':
      return { kind: 'container', image: d.image }
  }
}

/** Where a member runs in the fewest words, for its list item and header: "on runner1", "on debian:bookworm". */
export function runsOnWords(r: Runner): string | null {
  return r.kind === 'ssh' ? `on ${r.host}` : r.kind === 'container' ? `on ${r.image}` : null
}
