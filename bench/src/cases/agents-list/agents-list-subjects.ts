import { loadTest } from '../../measure'
import { loadSeconds } from '../http-agent/http-agent-case'
import { loadFigure } from '../http-load/load-figure'
import type { Subjects } from '../types'

/** One server at a time, each in its own process, loaded from this one. */
export const agentsListSubjects: Subjects = {
  async bare(size) {
    return loadFigure(
      await loadTest({ server: 'fastify-hello', path: 'hello', seconds: loadSeconds(size) }),
    )
  },

  async baton(size) {
    return loadFigure(
      await loadTest({ server: 'baton', path: 'agents', seconds: loadSeconds(size) }),
    )
  },
}
