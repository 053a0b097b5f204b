import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { SessionProvider } from './session';
import './styles.css';
import './signals.css';
import { startWalletDiscovery } from './wallet-discovery';

// Before the first render: wallets announce themselves in answer, and late ones on their own.
startWalletDiscovery();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <SessionProvider>
      <App />
    </SessionProvider>
  </StrictMode>,
);
