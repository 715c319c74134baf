/**
 * The diff dialog, loaded when first opened: @git-diff-view brings highlight.js with every language (about 1 MB),
 * which the first screen never needs.
 */
import { lazy, Suspense, type ComponentProps } from 'react'
import { Modal } from '../../components/ui'

const Dialog = lazy(() => import('./ChangesDialog').then((m) => ({ default: m.ChangesDialog })))

export function ChangesDialog(props: ComponentProps<typeof Dialog>) {
  return (
    <Suspense
      fallback={
        <Modal title={props.title} onClose={props.onClose} wide>
          <div className="muted">Loading the diff…</div>
        </Modal>
      }
    >
      <Dialog {...props} />
    </Suspense>
  )
}
