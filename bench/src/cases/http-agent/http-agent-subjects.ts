import { loadTest } from '../../measure'
import { loadFigure } from '../http-load/load-figure'
import type { Subjects } from '../types'
import { loadSeconds } from './http-agent-case'

/** One server at a time, each in its own process, loaded from this one. */
export const httpAgentSubjects: Subjects = {
  async bare(size) {
    const result = await loadTest({
      server: 'fastify-hello',
      path: 'hello',
      seconds: loadSeconds(size),
    })
    return loadFigure(result)
  },

  async baton(size) {
    const result = await loadTest({ server: 'baton', path: 'agent', seconds: loadSeconds(size) })
    return loadFigure(result)
  },
}
