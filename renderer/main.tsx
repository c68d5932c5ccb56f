/** Renderer entry: mounts the app and connects the store to the host. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { startTheme } from './persisted/theme.js';
import { useBaton } from './store/index.js';
import './styles.css';

const root = document.getElementById('root');
if (!root) {
  throw new Error('Baton: #root is missing from index.html');
}
startTheme();
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
void useBaton.getState().start();
