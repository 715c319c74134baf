import type { ReactNode } from 'react'

/** A table of the Figures tab: its column heads, its rows, and "none yet" when it has none. */
export function FigureTable({
  heads,
  empty = false,
  children,
}: {
  heads: string[]
  empty?: boolean
  children: ReactNode
}) {
  return (
    <table className="tokens-table">
      <thead>
        <tr>
          {heads.map((h) => (
            <th key={h}>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {empty && (
          <tr>
            <td colSpan={heads.length} className="muted">
              none yet
            </td>
          </tr>
        )}
        {children}
      </tbody>
    </table>
  )
}
