import { createRoot } from 'react-dom/client'

function App() {
  return <main>Concord</main>
}

createRoot(document.getElementById('root')!).render(<App />)
