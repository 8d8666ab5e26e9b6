import { type ToolExecutionOptions, type ToolSet, tool } from 'ai'
import { z } from 'zod'
import type { WorkspaceFiles } from './types'

// Made once: a zod schema costs far more to build than the tools around it.
const ReadInput = z.object({ path: z.string().min(1) })
const WriteInput = z.object({ path: z.string().min(1), content: z.string() })
const ListInput = z.object({ path: z.string().optional() })

/**
 * The AI SDK tools `read_file`, `write_file` and `list_files` over one workspace. Paths are
 * relative to its root; one that would leave it is refused with `WorkspaceEscapeError`.
 *
 * @example
 * const extraTools = createFileTools(workspace)
 * const result = await runAgent(grantTools(agent, Object.keys(extraTools)), task, { budget, extraTools })
 */
export function createFileTools(files: WorkspaceFiles): ToolSet {
  return fileToolsFor(() => files)
}

/**
 * The same tools, each call's workspace found by `filesOf` from the call's options: made once,
 * they serve every workspace that the call's `experimental_context` leads to.
 *
 * @example
 * const tools = fileToolsFor((options) => workspaceOf(options.experimental_context))
 */
export function fileToolsFor(filesOf: (options: ToolExecutionOptions) => WorkspaceFiles): ToolSet {
  return {
    read_file: tool({
      description: 'Reads a text file of your workspace. `path` is relative to the workspace.',
      inputSchema: ReadInput,
      execute: async ({ path }, options) => ({
        path,
        content: await filesOf(options).readFile(path),
      }),
    }),
    write_file: tool({
      description:
        'Writes a text file in your workspace (creating folders on the way). `path` is relative.',
      inputSchema: WriteInput,
      execute: async ({ path, content }, options) => {
        await filesOf(options).writeFile(path, content)
        return { path, bytes: Buffer.byteLength(content) }
      },
    }),
    list_files: tool({
      description: 'Lists the files of your workspace, or of one folder in it.',
      inputSchema: ListInput,
      execute: async ({ path }, options) => ({ files: await filesOf(options).listFiles(path) }),
    }),
  }
}
