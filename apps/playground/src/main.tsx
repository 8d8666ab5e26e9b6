import { BatonProvider } from '@baton/surface'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { stores } from './api/stores'
import { App } from './app'
import './ui/styles.css'

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BatonProvider stores={stores}>
      <App />
    </BatonProvider>
  </StrictMode>,
)
