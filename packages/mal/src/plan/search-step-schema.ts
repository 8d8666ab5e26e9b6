import { z } from 'zod'
import type { SearchAgentsStep, SearchModelsStep, SearchToolsStep } from './search-step-types'

const Text = z.string().min(1, 'must not be empty')
const Limit = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(50, 'must be at most 50')
  .default(10)
const SaveAs = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_-]*$/,
    'must be a name (letters, digits, "_" and "-", starting with a letter or "_")',
  )

export const SearchAgentsSchema = z.strictObject({
  op: z.literal('search_agents'),
  saveAs: SaveAs,
  query: Text,
  capability: Text.optional(),
  type: Text.optional(),
  trustTier: z.enum(['safe', 'low', 'medium', 'high', 'critical']).optional(),
  limit: Limit,
}) satisfies z.ZodType<SearchAgentsStep, unknown>

export const SearchToolsSchema = z.strictObject({
  op: z.literal('search_tools'),
  saveAs: SaveAs,
  query: Text,
  limit: Limit,
}) satisfies z.ZodType<SearchToolsStep, unknown>

export const SearchModelsSchema = z.strictObject({
  op: z.literal('search_models'),
  saveAs: SaveAs,
  query: z.string().optional(),
  capability: Text.optional(),
  provider: Text.optional(),
  maxOutputPerMTok: z.number().nonnegative().optional(),
  limit: Limit,
}) satisfies z.ZodType<SearchModelsStep, unknown>
