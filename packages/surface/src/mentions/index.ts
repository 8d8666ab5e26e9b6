export { listMentionableAgents } from './list-mentionable-agents'
export { type ParsedMentions, parseMentions } from './parse-mentions'
