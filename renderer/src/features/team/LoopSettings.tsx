import { useState } from 'react'
import type { WorkspaceSettings } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp, useAppStore } from '../../stores/app-store'
import './loop-settings.css'
import { CheckboxRow } from '../../components/CheckboxRow'

type Toggle =
  'startAgentOnTaskStart' | 'autoTurns' | 'autoDeliver' | 'autoChecks' | 'planFirst' | 'followUps' | 'merges'

const toggles: { key: Toggle; label: string; explain: string }[] = [
  {
    key: 'startAgentOnTaskStart',
    label: 'Starting a task starts its agent',
    explain:
      "Moving a task to in progress starts its assignee's turn on it: a message from Concord naming the task, with its spec and acceptance criteria.",
  },
  {
    key: 'autoTurns',
    label: 'Flagged members act on their own',
    explain:
      'When a decision change flags a task, Concord starts a turn for its idle assignee (and for the authors of evidence made stale) with the notice.',
  },
  {
    key: 'autoDeliver',
    label: 'Deliver on a passing implementation report',
    explain:
      "The assignee's passing implementation report on a task in progress delivers it on the report's commit (otherwise the card offers it).",
  },
  {
    key: 'autoChecks',
    label: 'Delivery asks for the checks',
    explain:
      'Delivering a task asks its tester and reviewer for the test and review it requires, with the message the card would send (otherwise the card offers Ask).',
  },
  {
    key: 'planFirst',
    label: 'New tasks are plan first',
    explain:
      "A new task's assignee first writes a plan in a read-only tree; you approve it, ask for changes or reject it, and code is written only once you approve (each new task can still choose).",
  },
  {
    key: 'followUps',
    label: 'Follow up merged tasks at once',
    explain:
      'When a decision a merged task implemented changes, Concord creates its follow-up task at once; off, the edit offers a button that creates it.',
  },
  {
    key: 'merges',
    label: 'Verified merges',
    explain:
      'The base branch only receives a tree a passing test checked: Merge on a task the base moved under queues it, Concord updates its branch, has it tested (and reviewed where files overlap) again, and merges it then. Off (as accepted): Merge lands what was accepted at once; the merged tree is not re-verified.',
  },
]

/** The checkbox of each setting (followUps is create | offer: checked is create; merges: checked is verified). */
const checkedOf = (settings: WorkspaceSettings, key: Toggle): boolean =>
  key === 'followUps'
    ? settings.followUps === 'create'
    : key === 'merges'
      ? settings.merges !== 'as-accepted'
      : settings[key]
const valueOf = (key: Toggle, checked: boolean) =>
  key === 'followUps'
    ? { followUps: checked ? ('create' as const) : ('offer' as const) }
    : key === 'merges'
      ? { merges: checked ? ('verified' as const) : ('as-accepted' as const) }
      : { [key]: checked }

/** The workspace's loop settings: a turn on task start, automatic turns for flagged members, delivery by report (workspaces.update). */
export function LoopSettings() {
  const settings = useApp((s) => s.workspaceSettings)
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const store = useAppStore()
  // The box shows the new value at once (a checkbox that waits for the server looks unclicked); a refusal puts it back.
  const [shown, setShown] = useState<Partial<Record<Toggle, boolean>>>({})
  const save = useAction(async (key: Toggle, value: boolean) => {
    if (!workspaceId) return
    setShown((s) => ({ ...s, [key]: value }))
    try {
      const next: WorkspaceSettings = await api.call('workspaces.update', { workspaceId, ...valueOf(key, value) })
      if (store.getState().workspaceId === workspaceId) store.setState({ workspaceSettings: next })
    } finally {
      setShown(({ [key]: _, ...rest }) => rest)
    }
  })
  if (!settings || !workspaceId) return null
  return (
    <div className="loop-settings small" data-testid="loop-settings">
      {toggles.map((t) => (
        <CheckboxRow
          key={t.key}
          title={t.explain}
          checked={shown[t.key] ?? checkedOf(settings, t.key)}
          onChange={(on) => void save.run(t.key, on)}
          testId={`setting-${t.key}`}
        >
          {t.label}
        </CheckboxRow>
      ))}
      <ErrorText error={save.error?.message} />
    </div>
  )
}
