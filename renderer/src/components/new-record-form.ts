import { useState } from 'react'
import { useApp } from '../stores/app-store'

/**
 * Whether a panel's "New decision" / "New task" form is open: by its own button, or by the palette's request, which
 * closing the form clears.
 */
export function useNewRecordForm(kind: 'decision' | 'task') {
  const [creating, setCreating] = useState(false)
  const newRecord = useApp((s) => s.newRecord)
  const startNew = useApp((s) => s.startNew)
  const showForm = creating || newRecord === kind
  const openForm = () => setCreating(true)
  const closeForm = () => {
    setCreating(false)
    if (newRecord) startNew(null)
  }
  return { showForm, openForm, closeForm }
}
