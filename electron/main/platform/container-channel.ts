/**
 * A runner that is a container of an image (Podman, else Docker): one container per member, started idle when the
 * member's first turn needs it and removed when the workspace closes, which ends everything that ran in it. Each call
 * is an `exec` into it; the agent is a long-lived `exec -i`. The container is the agent's sandbox: it sees only the
 * image, its tree inside it, and a folder of this machine's (mounted) where Concord's gateway listens for it.
 */
import { existsSync, mkdirSync } from 'node:fs'
import {
  containerEngine,
  execArgs,
  removeContainer,
  runEngine,
  runInContainer,
  startContainer,
  type ContainerEngine,
} from './container'
import type { RunnerChannel } from './runner-channel'

/** Where the folder of the member's sockets is in the container. */
const SOCKETS_THERE = '/concord-run'

/** The containers this process started, by name: removed when the workspace's agents stop (removeContainers). */
const started = new Map<string, ContainerEngine>()

/**
 * The channel to the member's container `name` of `image`; `sockets` is the folder of this machine's mounted in it,
 * where the member's gateway listens for the agent in it.
 */
export function containerChannel(o: { image: string; name: string; sockets: string }): RunnerChannel {
  let engine: ContainerEngine | null = null
  const ready = async (): Promise<ContainerEngine> => {
    engine ??= containerEngine()
    if (started.has(o.name)) return engine
    const running = await runEngine(engine, ['inspect', '--format', '{{.State.Running}}', o.name])
    if (running.stdout.toString('utf8').trim() !== 'true') {
      await removeContainer(engine, o.name)
      if (!existsSync(o.sockets)) mkdirSync(o.sockets, { recursive: true, mode: 0o700 })
      // The host's network: the agent reaches its model endpoint as it would here (a local model server included).
      await startContainer({
        engine,
        image: o.image,
        name: o.name,
        mounts: [{ host: o.sockets, target: SOCKETS_THERE, readOnly: false }],
        network: 'host',
      })
    }
    started.set(o.name, engine)
    return engine
  }
  return {
    label: `container ${o.image}`,
    confined: `it runs in its container (${o.image}), which is its sandbox: it sees only the image, its tree there and Concord's socket`,
    sockets: { here: o.sockets, there: SOCKETS_THERE },
    prepare: async () => {
      await ready()
    },
    run: async (argv, opts = {}) => runInContainer(await ready(), o.name, argv, { input: opts.input }),
    spawn: (argv) => {
      const e = engine ?? containerEngine()
      const [file, ...args] = execArgs(e, o.name, argv, { interactive: true })
      return { file: file!, args, env: e.env }
    },
  }
}

/** Removes the containers this process started (and all that ran in them); their trees live on here. */
export async function removeContainers(): Promise<void> {
  const all = [...started]
  started.clear()
  await Promise.all(all.map(([name, engine]) => removeContainer(engine, name).catch(() => {})))
}
