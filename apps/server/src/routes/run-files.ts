import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { assertOwned } from '../auth/owned'
import { NotFoundError } from '../http/http-errors'

/**
 * A file's name in its run, as the path gives it (decoded): `/`-separated segments, none of them
 * empty, `.` or `..`, and no backslash or control character. Names are looked up exactly in the
 * database, never on a disk, but a name that could mean another place is refused outright.
 */
const FileName = z
  .string()
  .min(1, 'names no file')
  .max(1024, 'is longer than 1024 characters')
  .refine(
    (name) =>
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
      !/[\\\u0000-\u001f\u007f]/.test(name) &&
      name.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..'),
    'must be a file name of the run (segments separated by "/", none empty, "." or "..")',
  )

const FileParams = z.object({ id: z.string().min(1), '*': FileName })

/**
 * `GET /api/v1/runs/:id/files/<name>`: a file a run's step left behind (a `browser` or
 * `display` task's screenshot, named by its `step-file` event), with the run's read rules
 * (its owner and admins, everyone when reads are public; others get 404).
 */
export const runFileRoutes: FastifyPluginAsyncZod = async (app) => {
  const { repositories } = app.baton
  app.get(
    '/api/v1/runs/:id/files/*',
    {
      schema: {
        tags: ['runs'],
        summary:
          "A file of a run (a task's screenshot), by the name its step-file event gives; served with its media type",
        params: FileParams,
        response: {
          200: {
            description: 'The file, in its own media type (`image/png` for a screenshot)',
            // Bytes, sent as they are: never held against a schema or serialized.
            content: { '*/*': { schema: z.any().meta({ type: 'string', format: 'binary' }) } },
          },
        },
      },
    },
    async (request, reply) => {
      const { id, '*': name } = request.params
      const run = await repositories.runs.find(id)
      if (!run) throw new NotFoundError('run', id)
      assertOwned(request, run.owner, 'read', 'run', id)
      const file = await repositories.runFiles.find(id, name)
      if (!file) throw new NotFoundError('file of run', `${id}/${name}`)
      const base = name.slice(name.lastIndexOf('/') + 1)
      return (
        reply
          .header('content-type', file.mediaType)
          .header('content-length', file.data.byteLength)
          .header('x-content-type-options', 'nosniff')
          .header('content-disposition', `inline; filename="${base.replace(/[^\w.-]/g, '_')}"`)
          // A run's file never changes once its step is done; it is the owner's alone.
          .header('cache-control', 'private, max-age=300')
          .send(Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength))
      )
    },
  )
}
