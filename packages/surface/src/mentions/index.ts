export { type ParsedMentions, parseMentions } from './parse-mentions'
