import type { Report } from '../../../../shared/schemas'
import { Badge } from '../../components/ui'
import { shortTime } from '../../lib/format'
import { useApp } from '../../stores/app-store'
import { memberName } from '../../stores/selectors'

const verdictTone = { pass: 'good', fail: 'bad', partial: 'warn' } as const

/** One report: what was checked, on which decision versions, and each claim with its validity now. */
export function ReportCard({ report, open, onToggle }: { report: Report; open: boolean; onToggle(): void }) {
  const task = useApp((s) => s.tasks[report.taskId])
  const author = useApp(memberName(report.authorId))
  const decisions = useApp((s) => s.decisions)
  const staleCount = report.claims.filter((c) => c.state === 'stale').length
  const key = (id: string) => decisions[id]?.key ?? id
  const validityText = report.validity === 'valid' ? 'valid' : staleCount ? `${staleCount} stale` : 'stale basis'
  return (
    <div
      className={`rcard validity-${report.validity}`}
      data-testid="report-card"
      data-key={report.key}
      data-validity={report.validity}
    >
      <button className="rcard-head" onClick={onToggle} aria-expanded={open}>
        <span className="dkey">{report.key}</span>
        <span className="rcard-title">
          {report.kind} of {task?.key ?? 'a task'} by {author}
        </span>
        <span className="spacer" />
        <Badge tone={verdictTone[report.verdict]}>{report.verdict}</Badge>
        <Badge
          tone={report.validity === 'valid' ? 'good' : 'bad'}
          title={
            staleCount
              ? `${staleCount} stale claim(s)`
              : report.validity === 'valid'
                ? 'every claim still valid'
                : 'a decision it relied on changed'
          }
        >
          {validityText}
        </Badge>
      </button>
      {open && (
        <div className="rcard-body">
          {report.summary && <div className="rcard-summary">{report.summary}</div>}
          <div className="rcard-line">
            <span className="muted">Checked</span>{' '}
            <code>{report.artifact.commit ? report.artifact.commit.slice(0, 10) : report.artifact.digest}</code>
            <span className="muted"> · {shortTime(report.createdAt)}</span>
          </div>
          <div className="rcard-line">
            <span className="muted">Based on</span>{' '}
            {report.basis.length === 0
              ? 'no decisions'
              : report.basis.map((b) => (
                  <span
                    key={b.decisionId}
                    className={`basis ${b.state}`}
                    title={b.state === 'suspect' ? 'this decision changed since' : 'current'}
                  >
                    {key(b.decisionId)} v{b.version}
                    {b.state === 'suspect' ? ' ⚠' : ''}
                  </span>
                ))}
          </div>
          <ul className="claims">
            {report.claims.map((c) => (
              <li key={c.id} className={`claim ${c.state}`} data-state={c.state}>
                <span className={`claim-mark ${c.state}`}>{c.state === 'valid' ? '✓' : '✗'}</span>
                <span className="claim-text">{c.text}</span>
                <span className="claim-decisions">{c.decisionIds.map(key).join(' ')}</span>
                {c.state === 'stale' && <Badge tone="bad">stale</Badge>}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}
