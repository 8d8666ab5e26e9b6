import { loadTest, pairedLoadTest } from '../../measure'
import { loadFigure } from '../http-load/load-figure'
import { loadSeconds, warmUpSeconds } from '../http-load/load-seconds'
import { pairedFigure, pairedRounds } from '../http-load/paired-figure'
import type { Subjects } from '../types'

/** Each server in its own process, loaded from this one: hello-world alone, then beside Baton. */
export const agentsListSubjects: Subjects = {
  async bare(size) {
    return loadFigure(
      await loadTest({
        server: 'fastify-hello',
        path: 'hello',
        seconds: loadSeconds(size),
        warmUpSeconds: warmUpSeconds(size),
      }),
    )
  },

  async baton(size) {
    const paired = await pairedLoadTest({
      subject: { server: 'baton', path: 'agents' },
      reference: { server: 'fastify-hello', path: 'hello' },
      ...pairedRounds(size),
    })
    return pairedFigure(paired, "hello-world's")
  },
}
