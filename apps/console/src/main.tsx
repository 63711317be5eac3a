import '@mantine/core/styles.css';
import { createTheme, localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';

const theme = createTheme({ primaryColor: 'indigo', defaultRadius: 'md' });
// Only the colour scheme is kept in the browser's storage; no credential ever is.
const colorSchemeManager = localStorageColorSchemeManager({ key: 'gw-console-color-scheme' });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager}>
      <App />
    </MantineProvider>
  </StrictMode>,
);
