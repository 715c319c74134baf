/**
 * Images in an ACP prompt (issue 35): the images of the message that starts the turn go as image content blocks to an
 * agent whose `initialize` answer says it takes them (agentCapabilities.promptCapabilities.image); otherwise they are
 * left out, and both the agent (in its prompt) and the human (a notice in the session) are told.
 */
import type { ContentBlock, InitializeResponse } from '@agentclientprotocol/sdk'
import { now } from '../../harness/ids'
import type { StepRow } from '../../harness/rows'
import type { TurnSteps } from '../step-writer'
import type { AcpTurnEnv } from './turn-env'

/** An ACP prompt's content blocks (Concord sends text and images). */
export type PromptBlock = ContentBlock

/** Whether the agent's initialize answer says it takes images in prompts. */
export function takesImages(init: InitializeResponse | null): boolean {
  return init?.agentCapabilities?.promptCapabilities?.image === true
}

/** The prompt's blocks: its text, then the start's images, or a line saying they were left out (and a notice). */
export function promptBlocks(
  env: AcpTurnEnv,
  start: StepRow,
  text: string,
  init: InitializeResponse | null,
  steps: TurnSteps,
): PromptBlock[] {
  const images = start.images ? env.ctx.store.stepImages.of(start.id) : []
  if (!images.length) return [{ type: 'text', text }]
  if (takesImages(init))
    return [
      { type: 'text', text },
      ...images.map((i) => ({ type: 'image' as const, mimeType: i.media_type, data: i.data.toString('base64') })),
    ]
  const n = images.length === 1 ? 'an image' : `${images.length} images`
  steps.insert({
    kind: 'notice',
    status: 'done',
    text: `The message carried ${n} that ${env.member.name}'s agent did not get: it does not take images in prompts (its ACP capabilities say so). It was told they were left out.`,
    ended_at: now(),
  })
  return [
    {
      type: 'text',
      text: `${text}\n\n[The human attached ${n} to this message; Concord left ${images.length === 1 ? 'it' : 'them'} out because this agent does not take images. Ask for a description if you need it.]`,
    },
  ]
}
