import type { Metrics } from '../../../../shared/schemas'
import { taskFlagWords } from '../../../../shared/task-rules'
import { EmptyState } from '../../components/ui'
import { compactNumber } from '../../lib/format'
import { useState } from 'react'
import { useApp } from '../../stores/app-store'
import type { RightTab } from '../../stores/types'
import { CostFigures } from './CostFigures'
import { FigureTable } from './FigureTable'
import { FigureItemsDialog, type FigureList } from './FigureItems'
import { openFiltered, type BoardFilter } from '../../stores/open-filtered'
import './figures.css'

/** A tab (filtered) or, for figures whose items live in no tab, the list of them in a modal. */
type Opens = TabOpens | { list: FigureList; what: string }

interface TabOpens {
  tab: RightTab
  board?: BoardFilter
  staleReports?: boolean
  /** What the click shows, for the tile's title. */
  what: string
}

/** One figure: its number, what it counts in a line, and (when there are items behind it) a click that opens them. */
function Figure({ label, value, explain, opens }: { label: string; value: number; explain: string; opens?: Opens }) {
  const setRightTab = useApp((s) => s.setRightTab)
  const workspaceId = useApp((s) => s.workspaceId)
  const [listOpen, setListOpen] = useState(false)
  const body = (
    <>
      <div className="figure-value">{compactNumber(value)}</div>
      <div className="figure-label">{label}</div>
      <div className="figure-explain">{explain}</div>
    </>
  )
  if (!opens) {
    return (
      <div className="figure" data-testid="figure" data-label={label}>
        {body}
      </div>
    )
  }
  // The dialog sits beside the button, not in it: React events bubble out of a portal to its React parent.
  return (
    <>
      <button
        className="figure figure-link"
        data-testid="figure"
        data-label={label}
        title={`Open ${opens.what}`}
        onClick={() => {
          if ('list' in opens) return setListOpen(true)
          openFiltered({
            ...(opens.board ? { board: opens.board } : {}),
            ...(opens.staleReports !== undefined ? { staleReports: opens.staleReports } : {}),
          })
          setRightTab(opens.tab)
        }}
      >
        {body}
        <span className="figure-open" aria-hidden="true">
          →
        </span>
      </button>
      {listOpen && 'list' in opens && workspaceId && (
        <FigureItemsDialog list={opens.list} workspaceId={workspaceId} onClose={() => setListOpen(false)} />
      )}
    </>
  )
}

/** The coordination figures: what the harness did for the team, and what it cost in tokens. */
export function Figures() {
  const m = useApp((s) => s.metrics)
  if (!m) return <EmptyState title="No figures yet">They appear as soon as the workspace has activity.</EmptyState>
  return (
    <div className="panel-section figures" data-testid="figures">
      <h4>Coordination</h4>
      <CoordinationFigures m={m} />
      <h4>Cost</h4>
      <CostFigures m={m} />
      <h4>Tokens</h4>
      <TokenFigures m={m} />
    </div>
  )
}

interface FigureSpec {
  label: string
  value: number
  explain: string
  opens: Opens
}

/** A row of the table below: the figure's label, its number, what it counts, what a click opens. */
const figure = (label: string, value: number, explain: string, opens: Opens): FigureSpec => ({
  label,
  value,
  explain,
  opens,
})

/** What the harness did for the team, each figure with what it counts and what it opens. */
function coordinationSpecs(m: Metrics): FigureSpec[] {
  const flagged =
    m.tasksFlagged.requirements_updated + m.tasksFlagged.needs_adjustment + m.tasksFlagged.needs_reverification
  const flaggedTasks: Opens = { tab: 'tasks', board: { flagged: true }, what: 'the board, flagged tasks only' }
  const staleReports: Opens = { tab: 'reports', staleReports: true, what: 'the stale reports' }
  return [
    figure(
      'decision edits',
      m.decisionEdits.normative,
      `Normative changes, each propagated to its dependents; ${m.decisionEdits.editorial} editorial fixes flagged nothing.`,
      { tab: 'decisions', what: 'the decisions' },
    ),
    figure('tasks flagged', flagged, 'Times a task was told that a decision it depends on changed.', flaggedTasks),
    figure(
      'notices sent',
      m.noticesSent,
      'Messages put into a member’s next step: only to members whose work was affected.',
      { list: 'notices', what: 'the notices, each at its step in the chat' },
    ),
    figure(
      'relays you did not have to make',
      m.autoTurns ?? 0,
      'Turns Concord started itself for a flagged member or the author of stale evidence.',
      { list: 'autoTurns', what: 'the turns Concord started, each in the chat' },
    ),
    figure(
      'acceptances revoked',
      m.acceptancesRevoked,
      'Accepted tasks sent back to re-verification by a change.',
      flaggedTasks,
    ),
    figure(
      'claims made stale',
      m.claims.madeStale,
      'Verified behaviours whose decision changed: no longer evidence until re-checked.',
      staleReports,
    ),
    figure(
      'claims kept valid',
      m.claims.keptValid,
      'Claims of an affected report that stayed valid: evidence not thrown away.',
      { tab: 'reports', staleReports: false, what: 'all reports' },
    ),
    figure(
      'stale evidence blocked',
      m.acceptances.refusedStale,
      'Acceptances refused because a report was stale or based on old versions.',
      staleReports,
    ),
    figure('accepted', m.acceptances.accepted, 'Tasks accepted on current evidence.', {
      tab: 'tasks',
      what: 'the board',
    }),
    figure(
      'proposals',
      m.proposals.created,
      `Changes proposed by members without authority: ${m.proposals.accepted} accepted, ${m.proposals.rejected} rejected.`,
      { tab: 'inbox', what: 'the inbox' },
    ),
  ]
}

/** What the harness did for the team, each figure opening what it counts. */
function CoordinationFigures({ m }: { m: Metrics }) {
  return (
    <>
      <div className="figure-grid">
        {coordinationSpecs(m).map((f) => (
          <Figure key={f.label} {...f} />
        ))}
      </div>
      <div className="flag-split muted small">
        {taskFlagWords.requirements_updated} {m.tasksFlagged.requirements_updated} · {taskFlagWords.needs_adjustment}{' '}
        {m.tasksFlagged.needs_adjustment} · {taskFlagWords.needs_reverification} {m.tasksFlagged.needs_reverification} ·
        refused for missing evidence {m.acceptances.refusedMissing}
      </div>
    </>
  )
}

/** The tokens spent, in total, per member and per task. */
function TokenFigures({ m }: { m: Metrics }) {
  const members = useApp((s) => s.members)
  return (
    <>
      <div className="muted small">
        {compactNumber(m.tokens.total.input)} in · {compactNumber(m.tokens.total.output)} out in total
        {m.tokens.total.unreported > 0 && (
          <>
            {' '}
            · {m.tokens.total.unreported} {m.tokens.total.unreported === 1 ? 'reply' : 'replies'} not reported by the
            provider
          </>
        )}
      </div>
      <FigureTable heads={['Member', 'in', 'out']} empty={m.tokens.perMember.length === 0}>
        {m.tokens.perMember.map((r) => (
          <tr key={r.memberId}>
            <td>{members[r.memberId]?.name ?? r.memberId}</td>
            <TokenCells {...r} />
          </tr>
        ))}
      </FigureTable>
      <FigureTable heads={['Task', 'in', 'out']} empty={m.tokens.perTask.length === 0}>
        {m.tokens.perTask.map((r) => (
          <tr key={r.taskId}>
            <td>
              {r.key} <span className="muted">{r.title}</span>
            </td>
            <TokenCells {...r} />
          </tr>
        ))}
      </FigureTable>
    </>
  )
}

/** Tokens of a row; replies the provider sent no usage for are said to be unreported, never counted as 0. */
function TokenCells({ input, output, unreported }: { input: number; output: number; unreported: number }) {
  if (unreported > 0 && input === 0 && output === 0) {
    return (
      <td colSpan={2} className="muted" title="The provider sent no token usage for these replies">
        not reported
      </td>
    )
  }
  const note = unreported > 0 ? ` (+${unreported} not reported)` : ''
  return (
    <>
      <td title={note ? `${unreported} replies without reported usage` : undefined}>
        {compactNumber(input)}
        {note && <span className="muted">*</span>}
      </td>
      <td>{compactNumber(output)}</td>
    </>
  )
}
