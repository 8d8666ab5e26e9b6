import { z } from 'zod'

export type ConclaveAction = 'write' | 'read' | 'list' | 'delete'
/** `conclave`: the run's shared state (one keyspace per root run), versioned, compare-and-set. */
export type ConclaveStep = {
  op: 'conclave'
  action: ConclaveAction
  key?: string
  value?: unknown
  ifVersion?: number
  saveAs?: string
}

export const ConclaveStepSchema = z
  .strictObject({
    op: z.literal('conclave'),
    action: z.enum(['write', 'read', 'list', 'delete']),
    key: z.string().min(1).optional(),
    value: z.unknown().optional(),
    ifVersion: z.number().int('must be a whole number').min(0, 'must be 0 or more').optional(),
    saveAs: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be a name (letters, digits, "_" and "-")')
      .optional(),
  })
  .superRefine((step, context) => {
    if (step.action !== 'list' && step.key === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['key'],
        message: `conclave ${step.action} needs a key`,
      })
    }
    if (step.action === 'write' && step.value === undefined) {
      context.addIssue({ code: 'custom', path: ['value'], message: 'conclave write needs a value' })
    }
    if ((step.action === 'read' || step.action === 'list') && step.ifVersion !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['ifVersion'],
        message: `ifVersion is for write and delete, not ${step.action}`,
      })
    }
  })
