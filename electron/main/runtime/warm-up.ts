/** The provider SDKs members use load once the first screen is up, not at start and not in the first turn. */
import type { EventBus } from '../platform/events/event-bus'
import { warmProvider, type ProviderKind } from './providers'

/** After start, when the first screen is up: the provider SDKs members use are loaded then (see warmProvider). */
const WARM_AFTER_MS = 1500

/** Loads the SDKs of `kinds` soon after start, and a member's as soon as it is given a provider. */
export function warmUpProviders(bus: EventBus, kinds: Set<ProviderKind>): void {
  setTimeout(() => kinds.forEach(warmProvider), WARM_AFTER_MS).unref()
  bus.on((e) => {
    const provider = e.event === 'member.changed' ? e.payload.member.provider : null
    if (provider && provider.kind !== 'acp') warmProvider(provider.kind)
  })
}
