import { useApp } from '../stores/app-store'
import {
  flaggedTaskCount,
  openQuestionCount,
  pendingApprovalCount,
  pendingProposalCount,
  staleReportCount,
} from '../stores/selectors'
import type { RightTab } from '../stores/types'
import { DecisionsPanel } from '../features/decisions/DecisionsPanel'
import { Inbox } from '../features/inbox/Inbox'
import { Figures } from '../features/metrics/Figures'
import { ReportsPanel } from '../features/reports/ReportsPanel'
import { TaskBoard } from '../features/tasks/TaskBoard'
import { PanelButton } from './PanelButton'
import './layout.css'

// In a narrow panel (1024 px windows) only the open tab keeps its label; the others are icons named on hover.
const tabs: { id: RightTab; label: string; icon: string }[] = [
  { id: 'decisions', label: 'Decisions', icon: '◆' },
  { id: 'tasks', label: 'Tasks', icon: '☰' },
  { id: 'reports', label: 'Reports', icon: '✓' },
  { id: 'inbox', label: 'Inbox', icon: '✉' },
  { id: 'figures', label: 'Figures', icon: '▦' },
]

export function RightPanel() {
  const tab = useApp((s) => s.rightTab)
  const setTab = useApp((s) => s.setRightTab)
  const pending = useApp(pendingProposalCount) + useApp(pendingApprovalCount) + useApp(openQuestionCount)
  const flagged = useApp(flaggedTaskCount)
  const staleReports = useApp(staleReportCount)
  const count: Partial<Record<RightTab, { n: number; tone: string }>> = {
    inbox: { n: pending, tone: 'warn' },
    tasks: { n: flagged, tone: 'warn' },
    reports: { n: staleReports, tone: 'bad' },
  }
  return (
    <aside className="right-panel" data-testid="right-panel">
      <nav className="tabs" role="tablist">
        {tabs.map((t) => (
          <button
            key={t.id}
            role="tab"
            title={t.label}
            aria-label={t.label}
            aria-selected={tab === t.id}
            className={tab === t.id ? 'on' : ''}
            onClick={() => setTab(t.id)}
            data-testid={`tab-${t.id}`}
          >
            <span className="tab-icon" aria-hidden="true">
              {t.icon}
            </span>
            <span className="tab-label">{t.label}</span>
            {count[t.id]?.n ? <span className={`count ${count[t.id]!.tone}`}>{count[t.id]!.n}</span> : null}
          </button>
        ))}
        <PanelButton does="hide" />
      </nav>
      <div className="panel-body">
        {tab === 'decisions' && <DecisionsPanel />}
        {tab === 'tasks' && <TaskBoard />}
        {tab === 'reports' && <ReportsPanel />}
        {tab === 'inbox' && <Inbox />}
        {tab === 'figures' && <Figures />}
      </div>
    </aside>
  )
}
