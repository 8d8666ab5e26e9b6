import type { ModelsCallStep, SynthesizeStep } from '../../plan'
import { renderTemplate, toText } from '../../template'
import { lookupReference } from '../../template/template-scope'
import { type CallModelOptions, callModel } from '../call-model'
import type { StepContext, StepOutcome } from './step-context'

const SYNTHESIZE_SYSTEM =
  'You combine the material you are given into one answer, following the instruction exactly.'

/**
 * Runs a `models_call` (one direct model call) or a `synthesize` step (the named values and
 * an instruction, to one model). The spend goes to the coordinator's wallet.
 *
 * @example
 * const { value } = await runModelStep(context) // value: the model's text
 */
export async function runModelStep(
  context: StepContext<ModelsCallStep | SynthesizeStep>,
): Promise<StepOutcome> {
  const { step, budget, scope, services, onText } = context
  const wallet = services.coordinatorWallet
  if (step.op === 'models_call') {
    // Field by field: a fan-out makes one of these per branch, and spreads cost more.
    const call: CallModelOptions = {
      models: services.models(),
      model: step.model,
      prompt: renderTemplate(step.prompt, scope),
      budget,
      wallet,
    }
    if (step.system !== undefined) call.system = renderTemplate(step.system, scope)
    if (step.temperature !== undefined) call.temperature = step.temperature
    if (onText) call.onText = onText
    const result = await callModel(call)
    return { value: result.text, wallet }
  }
  const streamed = onText ? { onText } : {}
  const sections = step.from.map((name) => {
    const found = lookupReference(scope, { source: name, root: name, path: [], offset: 0 })
    return `## ${name}\n${found.found ? toText(found.value) : '(no value)'}`
  })
  const result = await callModel({
    models: services.models(),
    model: step.model ?? services.model,
    system: SYNTHESIZE_SYSTEM,
    prompt: `${renderTemplate(step.instruction, scope)}\n\n${sections.join('\n\n')}`,
    budget,
    wallet,
    ...streamed,
  })
  return { value: result.text, wallet }
}
