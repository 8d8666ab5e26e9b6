import { lazy, Suspense, useEffect, useState } from 'react'
import { AgentsView } from './agents/agents-view'
import { refreshDirectory, stores } from './api/stores'
import { BusView } from './bus/bus-view'
import { ChatView } from './chat/chat-view'
import { SwarmsView } from './swarms/swarms-view'
import { ConnectionBanner } from './ui/connection-banner'
import { ThemeToggle } from './ui/theme-toggle'

// The editor, the graph and the charts are most of the page's weight: loaded when opened.
const RunsView = lazy(() =>
  import('./runs/runs-view').then((module) => ({ default: module.RunsView })),
)
const SpendView = lazy(() =>
  import('./spend/spend-view').then((module) => ({ default: module.SpendView })),
)

const views = {
  agents: { label: 'Agents', View: AgentsView },
  chat: { label: 'Chat', View: ChatView },
  runs: { label: 'Runs', View: RunsView },
  swarms: { label: 'Swarms', View: SwarmsView },
  bus: { label: 'Bus', View: BusView },
  spend: { label: 'Spend', View: SpendView },
} as const
export type ViewName = keyof typeof views

function viewFromHash(): ViewName {
  const name = window.location.hash.replace(/^#\/?/, '').split('?')[0] as ViewName
  return name in views ? name : 'chat'
}

/** The playground: one view at a time, chosen by the URL's hash (`#/runs`). */
export function App() {
  const [view, setView] = useState<ViewName>(viewFromHash)
  useEffect(() => {
    const onHash = () => setView(viewFromHash())
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, [])
  // Agents and swarms are read again when a view opens, so others' changes show up.
  useEffect(() => {
    if (view) void refreshDirectory().catch(() => undefined)
  }, [view])
  useEffect(() => {
    // Agents and swarms are read again whenever the live stream comes back.
    return stores.comm.subscribe((state, previous) => {
      if (state.connection.state === 'open' && previous.connection.state !== 'open')
        void refreshDirectory().catch(() => undefined)
    })
  }, [])
  const { View } = views[view]
  return (
    <div className="shell">
      <header className="top">
        <a className="brand" href="#/chat">
          Baton <span className="muted">playground</span>
        </a>
        <nav aria-label="Views" className="tabs">
          {Object.entries(views).map(([name, { label }]) => (
            <a
              key={name}
              href={`#/${name}`}
              className="tab"
              aria-current={name === view ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        <ThemeToggle />
      </header>
      <ConnectionBanner />
      <main className="content" id={`view-${view}`}>
        <Suspense fallback={<p className="muted">Loading…</p>}>
          <View />
        </Suspense>
      </main>
    </div>
  )
}
