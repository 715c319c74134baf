/**
 * Hands what a call answers to `onValue` (its failure to `onError`; without one the failure is ignored) unless the
 * effect that made the call was cleaned up first: an answer to an older call never overwrites a newer one. Returns
 * that clean-up, for the effect to return.
 */
export function whileMounted<T>(
  call: Promise<T>,
  onValue: (value: T) => void,
  onError: (err: unknown) => void = () => undefined,
): () => void {
  let live = true
  call.then(
    (value) => {
      if (live) onValue(value)
    },
    (err: unknown) => {
      if (live) onError(err)
    },
  )
  return () => {
    live = false
  }
}
