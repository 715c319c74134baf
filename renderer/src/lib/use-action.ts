import { useCallback, useEffect, useRef, useState } from 'react'
import { asClientError, type ClientError } from '../api/errors'

/** Runs one async action at a time for a button or form, keeping its pending state and last error. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<ClientError | null>(null)
  const alive = useRef(true)
  useEffect(() => {
    alive.current = true
    return () => {
      alive.current = false
    }
  }, [])
  const fnRef = useRef(fn)
  useEffect(() => {
    fnRef.current = fn
  })
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    setPending(true)
    setError(null)
    try {
      return await fnRef.current(...args)
    } catch (err) {
      if (alive.current) setError(asClientError(err))
      return undefined
    } finally {
      if (alive.current) setPending(false)
    }
  }, [])
  return { run, pending, error, setError }
}
