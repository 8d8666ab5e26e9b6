import { loadTest } from '../../measure'
import { loadSeconds } from '../http-agent/http-agent-case'
import { loadFigure } from '../http-load/load-figure'
import type { Subjects } from '../types'

// A v1.0 JSON-RPC SendMessage with a fresh message id per request.
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: '[<id>]', role: 'ROLE_USER', parts: [{ text: 'Hi' }] } },
})
const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' }

/** The same request to each server, one server at a time. */
export const a2aSubjects: Subjects = {
  async bare(size) {
    const result = await loadTest({
      server: 'a2a-reference',
      path: 'a2a',
      seconds: loadSeconds(size),
      method: 'POST',
      headers,
      body,
    })
    return loadFigure(result)
  },

  async baton(size) {
    const result = await loadTest({
      server: 'baton',
      path: 'a2a',
      seconds: loadSeconds(size),
      method: 'POST',
      headers,
      body,
    })
    return loadFigure(result, 'message')
  },
}
