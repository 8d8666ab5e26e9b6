import { loadTest, pairedLoadTest } from '../../measure'
import { loadFigure } from '../http-load/load-figure'
import { loadSeconds, warmUpSeconds } from '../http-load/load-seconds'
import { pairedFigure, pairedRounds } from '../http-load/paired-figure'
import type { Subjects } from '../types'

/** Each server in its own process, loaded from this one: hello-world alone, then beside Baton. */
export const httpAgentSubjects: Subjects = {
  async bare(size) {
    const result = await loadTest({
      server: 'fastify-hello',
      path: 'hello',
      seconds: loadSeconds(size),
      warmUpSeconds: warmUpSeconds(size),
    })
    return loadFigure(result)
  },

  async baton(size) {
    const paired = await pairedLoadTest({
      subject: { server: 'baton', path: 'agent' },
      reference: { server: 'fastify-hello', path: 'hello' },
      ...pairedRounds(size),
    })
    return pairedFigure(paired, "hello-world's")
  },
}
