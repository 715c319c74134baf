import { useApp } from '../stores/app-store'

const looks = {
  show: { className: 'panel-open', words: 'Show panel', mark: '‹' },
  hide: { className: 'icon-btn tabs-close', words: 'Hide panel', mark: '›' },
}

/**
 * The right panel's own button (Alt P does the same): "show" stands in the panel's place while it is folded, "hide"
 * ends its row of tabs.
 */
export function PanelButton({ does }: { does: keyof typeof looks }) {
  const setPanelOpen = useApp((s) => s.setPanelOpen)
  const look = looks[does]
  return (
    <button
      className={look.className}
      onClick={() => setPanelOpen(does === 'show')}
      title={`${look.words} (Alt P)`}
      aria-label={look.words}
    >
      {look.mark}
    </button>
  )
}
