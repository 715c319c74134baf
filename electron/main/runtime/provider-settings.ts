/**
 * What a turn's provider is made of (kind, model, endpoint, agent and key), as a digest: the key stays out of it. A
 * member in error whose digest changed (the fix of a refused key, say) has its failed turn run again (Runtime).
 */
import { createHash } from 'node:crypto'
import type { Harness } from '../harness/harness'
import { secretRef } from '../harness/members/members'
import type { MemberHost } from './member-host'

export function providerSettings(harness: Harness, host: MemberHost): string {
  const m = harness.ctx(host.wsId).store.members.get(host.memberRowId)
  const key = harness.secrets.get(secretRef(host.memberId)) ?? null
  const { provider_kind, provider_model, provider_base_url, agent, agent_command, agent_args, agent_env } = m ?? {}
  const parts = [
    provider_kind,
    provider_model,
    provider_base_url,
    agent,
    agent_command,
    agent_args,
    agent_env,
    m?.agent_key_variable,
    key,
  ]
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex')
}
