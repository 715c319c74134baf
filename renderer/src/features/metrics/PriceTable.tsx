/**
 * The workspace's price table (US dollars per million tokens, per model), edited in place: a built-in member's
 * tokens are priced from it; a model not in it is "not reported", never $0.
 */
import { useState } from 'react'
import type { ModelPrice } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp, useAppStore } from '../../stores/app-store'

interface Row {
  model: string
  input: string
  output: string
}

const rowsOf = (prices: Record<string, ModelPrice>): Row[] =>
  Object.entries(prices).map(([model, p]) => ({ model, input: String(p.input), output: String(p.output) }))

export function PriceTable() {
  const settings = useApp((s) => s.workspaceSettings)
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const store = useAppStore()
  const [rows, setRows] = useState<Row[] | null>(null)
  const shown = rows ?? rowsOf(settings?.prices ?? {})
  const edit = (i: number, field: keyof Row, value: string) =>
    setRows(shown.map((r, j) => (j === i ? { ...r, [field]: value } : r)))
  const save = useAction(async () => {
    if (!workspaceId) return
    // Sent as typed (an empty model name is dropped): the server names a bad price.
    const prices = Object.fromEntries(
      shown
        .filter((r) => r.model.trim())
        .map((r) => [r.model.trim(), { input: Number(r.input), output: Number(r.output) }]),
    )
    const next = await api.call('workspaces.update', { workspaceId, prices })
    if (store.getState().workspaceId === workspaceId) store.setState({ workspaceSettings: next })
    setRows(null)
    void store.getState().refreshMetrics()
  })
  if (!settings) return null
  return (
    <details className="price-table small" data-testid="price-table">
      <summary>Prices of built-in members' models (US dollars per million tokens)</summary>
      <table className="tokens-table">
        <thead>
          <tr>
            <th>model</th>
            <th>in</th>
            <th>out</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r, i) => (
            <tr key={i}>
              {(['model', 'input', 'output'] as const).map((f) => (
                <td key={f}>
                  <input
                    aria-label={`${f} of ${r.model || 'a new model'}`}
                    data-testid={`price-${f}`}
                    inputMode={f === 'model' ? undefined : 'decimal'}
                    value={r[f]}
                    onChange={(e) => edit(i, f, e.target.value)}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <button
        className="btn small"
        type="button"
        data-testid="price-add"
        onClick={() => setRows([...shown, { model: '', input: '0', output: '0' }])}
      >
        Add a model
      </button>{' '}
      <button
        className="btn small"
        type="button"
        disabled={save.pending || rows === null}
        data-testid="price-save"
        onClick={() => void save.run()}
      >
        Save prices
      </button>
      <div className="muted">A dated name (model-2025…) takes its family's price. Check your provider's prices.</div>
      <ErrorText error={save.error?.message} />
    </details>
  )
}
