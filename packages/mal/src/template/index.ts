export {
  findReferences,
  parseTemplate,
  type TemplatePart,
  type TemplateReference,
} from './parse-template'
export { renderTemplate, renderValue, toText } from './render-template'
export { TemplateSyntaxError, TemplateUnresolvedError } from './template-errors'
export {
  type Lookup,
  lookupReference,
  resolveReference,
  type TemplateScope,
} from './template-scope'
