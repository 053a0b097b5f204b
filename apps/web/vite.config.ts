import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Where `vite dev` sends API calls: a running `pnpm start`. */
const API = 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react()],
  build: {
    target: 'es2022',
    // The API serves these files at `/`; hashed names let it cache them as immutable.
    assetsDir: 'assets',
  },
  server: {
    // The built app is served by the API itself (same origin). In development the dev server
    // forwards the API's paths, so the app still calls its own origin and needs no CORS.
    proxy: { '/trpc': API, '/avatars': API },
  },
});
