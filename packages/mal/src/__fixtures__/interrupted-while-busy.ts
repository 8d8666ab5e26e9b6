// A process that handles Ctrl-C itself (it has work pending, as a CLI waiting on a model call
// has), busy (its event loop held) when the signal comes: what a CLI is while it loads or
// compiles what a step needs.
const pending = setTimeout(() => process.stdout.write('not interrupted\n'), 10_000)
process.once('SIGINT', () => {
  clearTimeout(pending)
  process.stdout.write('cancelled\n')
  process.exitCode = 130
})
process.stdout.write('ready\n')
const until = Date.now() + 300
while (Date.now() < until) {
  // Held, as a busy process is.
}
