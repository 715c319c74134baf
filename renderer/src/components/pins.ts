/**
 * Pinned mentions in the chat: the versions a step's text was written against (Step.refs), given to
 * the chips inside its Markdown through a context, and the pinned revisions fetched once and cached.
 */
import { createContext, useContext, useEffect, useState } from 'react'
import type { Revision, StepRef } from '../../../shared/schemas'
import type { ClientApi } from '../api/bridge-client'
import { useApp } from '../stores/app-store'
import { whileMounted } from '../lib/while-mounted'

/** The pins of the step whose text is being rendered; null outside a step (panels, previews). */
export const PinsContext = createContext<readonly StepRef[] | null>(null)

/** The version a decision key was pinned to in the surrounding step, if any. */
export function usePinnedVersion(key: string): number | undefined {
  return useContext(PinsContext)?.find((r) => r.key === key)?.version
}

/** What a decision chip shows: the pinned version when there is one, and the current one if it moved on. */
export interface DecisionChipView {
  version: number
  /** The current version when the chip's is an older one ("changed since — now v3"); else null. */
  nowVersion: number | null
}

export function decisionChipView(currentVersion: number, pinnedVersion: number | undefined): DecisionChipView {
  // Unpinned (a step from before pins, or no step at all): the live version, as always.
  if (pinnedVersion === undefined) return { version: currentVersion, nowVersion: null }
  return { version: pinnedVersion, nowVersion: pinnedVersion === currentVersion ? null : currentVersion }
}

export const changedSince = (nowVersion: number) => `changed since — now v${nowVersion}`

/** A merged task's chip: the version its code was merged on, and the current one if the decision moved on. */
export const mergedOn = (key: string, view: DecisionChipView) =>
  `merged on ${key} v${view.version}${view.nowVersion === null ? '' : ` · now v${view.nowVersion}`}`

// Revisions never change: one history fetch per decision serves every card, fetched again only when a
// pin names a version newer than the history it has.
const histories = new Map<string, Promise<Revision[]>>()

export function pinnedRevision(api: ClientApi, decisionId: string, version: number): Promise<Revision | undefined> {
  const find = (list: Revision[]) => list.find((r) => r.version === version)
  const cached = histories.get(decisionId)
  const load = () => {
    const p = api.call('decisions.history', { decisionId })
    histories.set(decisionId, p)
    // A failed fetch is not cached: the next card asks again.
    p.catch(() => histories.delete(decisionId))
    return p.then(find)
  }
  if (!cached) return load()
  return cached.then((list) => find(list) ?? load(), load)
}

/** The pinned revision of a decision, once loaded (undefined while loading or when it has none). */
export function usePinnedRevision(decisionId: string | undefined, version: number | undefined): Revision | undefined {
  const api = useApp((s) => s.api)
  const [rev, setRev] = useState<Revision | undefined>()
  useEffect(() => {
    if (!decisionId || version === undefined) return
    return whileMounted(pinnedRevision(api, decisionId, version), setRev, () => setRev(undefined))
  }, [api, decisionId, version])
  return rev && rev.decisionId === decisionId && rev.version === version ? rev : undefined
}
