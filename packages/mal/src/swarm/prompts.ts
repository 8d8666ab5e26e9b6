import type { ResolvedSwarmMember } from './types'

/** Prompts a swarm sends its members. Each states the task first so any member can work alone. */

const label = (member: ResolvedSwarmMember) => `${member.agentId} (${member.agent.name})`

export function planPrompt(options: {
  task: string
  workers: ResolvedSwarmMember[]
  previous?: { result: string; critique: string }
}): string {
  const { task, workers, previous } = options
  return [
    `Task: ${task}`,
    `You lead a team. Split the task into one sub-task per worker, one line each, as "<worker id>: <sub-task>".`,
    `Workers:\n${workers.map((worker) => `- ${label(worker)}`).join('\n')}`,
    ...(previous
      ? [
          `Your team's last result:\n${previous.result}`,
          `The reviewer sent it back:\n${previous.critique}`,
        ]
      : []),
  ].join('\n\n')
}

export function workPrompt(options: { task: string; plan: string; subTask: string }): string {
  return [
    `Task: ${options.subTask}`,
    `It is your part of: ${options.task}`,
    `The plan of your team:\n${options.plan}`,
  ].join('\n\n')
}

export function synthesisPrompt(options: {
  task: string
  works: { member: ResolvedSwarmMember; text: string }[]
}): string {
  return [
    `Task: combine your workers' results into one answer to: ${options.task}`,
    ...options.works.map(({ member, text }) => `From ${label(member)}:\n${text}`),
  ].join('\n\n')
}

export function reviewPrompt(options: { task: string; result: string }): string {
  return [
    `Task: review this answer to: ${options.task}`,
    `Answer:\n${options.result}`,
    `If it is good enough, reply with the single word APPROVED first. Otherwise reply with what must change.`,
  ].join('\n\n')
}

export function proposalPrompt(options: {
  task: string
  previous?: { proposals: { member: ResolvedSwarmMember; text: string }[]; weights: number[] }
}): string {
  const { task, previous } = options
  if (!previous) return `Task: ${task}\n\nPropose your answer.`
  return [
    `Task: ${task}`,
    `No proposal reached consensus last round. The proposals and the weight that voted for each:`,
    ...previous.proposals.map(
      ({ member, text }, index) =>
        `[${index}] by ${label(member)}, ${previous.weights[index] ?? 0} votes:\n${text}`,
    ),
    `Propose your answer again, revised so that more members can support it.`,
  ].join('\n\n')
}

export function votePrompt(options: {
  task: string
  proposals: { member: ResolvedSwarmMember; text: string }[]
}): string {
  return [
    `Task: vote for the best proposal for: ${options.task}`,
    ...options.proposals.map(
      ({ member, text }, index) => `[${index}] by ${label(member)}:\n${text}`,
    ),
    `Reply with JSON only: {"proposal": N}, where N is the number in brackets of the proposal you support.`,
  ].join('\n\n')
}

export function turnPrompt(options: {
  task: string
  previous?: { member: ResolvedSwarmMember; text: string }
}): string {
  const { task, previous } = options
  if (!previous) return `Task: ${task}\n\nYou go first; give your answer.`
  return [
    `Task: ${task}`,
    `The answer so far, from ${label(previous.member)}:\n${previous.text}`,
    `Build on it: improve it and give the whole improved answer.`,
  ].join('\n\n')
}
