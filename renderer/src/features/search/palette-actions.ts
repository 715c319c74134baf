import type { AppState, RightTab } from '../../stores/types'

/** A command of the palette: what it says, and what it does to the app's state. */
export interface PaletteAction {
  id: string
  label: string
  /** A second, quieter word (a member's role, the key that does the same). */
  hint?: string
  run(s: AppState): void
}

const tabs: { tab: RightTab; label: string }[] = [
  { tab: 'decisions', label: 'Decisions' },
  { tab: 'tasks', label: 'Tasks' },
  { tab: 'reports', label: 'Reports' },
  { tab: 'inbox', label: 'Inbox' },
  { tab: 'figures', label: 'Figures' },
]

/** The common actions, in the order the empty palette lists them. */
export function paletteActions(s: AppState): PaletteAction[] {
  const members = s.memberOrder.flatMap((id) => {
    const m = s.members[id]
    return m
      ? [
          {
            id: `member-${id}`,
            label: `Message ${m.name}`,
            hint: m.role,
            run: (x: AppState) => {
              x.selectMember(id)
              x.focusComposer()
            },
          },
        ]
      : []
  })
  return [
    { id: 'new-decision', label: 'New decision', run: (x) => x.startNew('decision') },
    { id: 'new-task', label: 'New task', run: (x) => x.startNew('task') },
    ...members,
    ...tabs.map(({ tab, label }) => ({
      id: `tab-${tab}`,
      label: `Open ${label}`,
      run: (x: AppState) => {
        if (tab === 'decisions') x.openDecision(null)
        if (tab === 'tasks') x.openTask(null)
        if (tab === 'reports') x.openReport(null)
        x.setRightTab(tab)
      },
    })),
    {
      id: 'team',
      label: s.view === 'team' ? 'Back to one session' : 'Team view: every session side by side',
      hint: 'Alt T',
      run: (x) => x.setView(x.view === 'team' ? 'member' : 'team'),
    },
    {
      id: 'panel',
      label: s.panelOpen ? 'Hide the right panel' : 'Show the right panel',
      hint: 'Alt P',
      run: (x) => x.setPanelOpen(!x.panelOpen),
    },
    { id: 'shortcuts', label: 'Keyboard shortcuts', hint: '?', run: (x) => x.setShowShortcuts(true) },
  ]
}

/** The actions whose label holds every word typed (any case). */
export function matchActions(actions: PaletteAction[], query: string): PaletteAction[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (!words.length) return actions
  return actions.filter((a) => {
    const text = `${a.label} ${a.hint ?? ''}`.toLowerCase()
    return words.every((w) => text.includes(w))
  })
}
