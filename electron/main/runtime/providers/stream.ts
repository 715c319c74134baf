/**
 * What both providers do around their wire format's stream: the reply's text handed on as it grows, the stream read
 * to its end, and whatever fails on the way mapped to a ProviderError.
 */
import { CallbackError, checkStreamEnd, toProviderError, type FailureContext, type SdkErrors } from './errors'
import type { ModelResult } from './types'

/** The reply's text so far; each piece goes to the caller as it comes (a throw there is rethrown as the caller's). */
export class ReplyText {
  text = ''

  constructor(private readonly onText: (delta: string) => void) {}

  add(delta: string | null | undefined): void {
    if (!delta) return
    this.text += delta
    try {
      this.onText(delta)
    } catch (err) {
      throw new CallbackError(err)
    }
  }
}

/** Where a provider's failures are reported from: its name, its endpoint, and the key never to show. */
export type ProviderFailure = Pick<FailureContext, 'label' | 'where' | 'key'>

/** A wire format's reply put together from its stream's events; its text goes to a ReplyText as it comes. */
export interface ReplyAssembler<E> {
  add(event: E): void
  /** The tool calls, the usage and the stop reason, once the stream has ended. */
  finish(): Omit<ModelResult, 'text'>
}

/**
 * Opens a stream and hands every event of it to the assembler. A failure before the first event is a failure to
 * reach the provider, one after it a reply lost midway; an abort the SDK ended quietly, or an empty stream, is one too.
 */
export async function streamReply<E>(
  open: () => Promise<AsyncIterable<E>>,
  assembler: (text: ReplyText) => ReplyAssembler<E>,
  onText: (delta: string) => void,
  sdk: SdkErrors,
  failure: ProviderFailure & { signal: AbortSignal | undefined },
): Promise<ModelResult> {
  const text = new ReplyText(onText)
  const reply = assembler(text)
  let sawEvent = false
  try {
    for await (const event of await open()) {
      sawEvent = true
      reply.add(event)
    }
  } catch (err) {
    throw toProviderError(err, sdk, { ...failure, streaming: sawEvent })
  }
  checkStreamEnd(failure.signal, sawEvent, failure.label)
  return { text: text.text, ...reply.finish() }
}
