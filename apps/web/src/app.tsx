import { lazy, Suspense, useEffect } from 'react';
import { FollowingCount, NoticeBanner, SessionBar } from './components/session-bar';
import { Empty, Loading } from './components/states';
import { CataloguePage } from './pages/catalogue.page';
import { FollowingPage } from './pages/following.page';
import { ProviderPage } from './pages/provider.page';
import { SessionsPage } from './pages/sessions.page';
import { SignalsPage } from './pages/signals.page';
import { WalletsPage } from './pages/wallets.page';
import {
  catalogueHref,
  DEFAULT_VIEW,
  followingHref,
  type Route,
  sessionsHref,
  signalsHref,
  useRoute,
  walletsHref,
} from './router';

/** The publisher page (forms, statement building) is fetched when first opened. */
const PublishPage = lazy(() => import('./pages/publish.page').then((module) => ({ default: module.PublishPage })));

function Screen({ route }: { route: Route }) {
  switch (route.name) {
    case 'catalogue':
      return <CataloguePage view={route.view} />;
    case 'provider':
      return <ProviderPage key={route.id} id={route.id} />;
    case 'publish':
      return (
        <Suspense fallback={<Loading label="Loading the publisher page…" />}>
          <PublishPage key={route.id} id={route.id} />
        </Suspense>
      );
    case 'signals':
      return <SignalsPage />;
    case 'following':
      return <FollowingPage page={route.page} />;
    case 'sessions':
      return <SessionsPage page={route.page} />;
    case 'wallets':
      return <WalletsPage />;
    default:
      return (
        <Empty title="Nothing here">
          <a href={catalogueHref(DEFAULT_VIEW)}>Back to the providers</a>
        </Empty>
      );
  }
}

export function App() {
  const route = useRoute();
  // A new screen (or another page of a list, clicked at its foot) starts at the top; a new sort,
  // filter or search of the catalogue stays where the reader is (the bar they typed in, the
  // header they clicked). A block body: recent Chromium returns a promise from scrollTo, which
  // React would take for a cleanup.
  const screen = route.name === 'catalogue' ? `catalogue:${route.view.page}` : JSON.stringify(route);
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [screen]);
  const tab =
    route.name === 'following' || route.name === 'sessions' || route.name === 'wallets' || route.name === 'signals'
      ? route.name
      : 'providers';
  return (
    <>
      <header className="topbar">
        <div className="topbar-inner">
          <a className="brand" href={catalogueHref(DEFAULT_VIEW)}>
            <img src="/favicon.svg" alt="" width={26} height={26} />
            Signal
          </a>
          <nav className="tabs" aria-label="Main">
            <a href={catalogueHref(DEFAULT_VIEW)} aria-current={tab === 'providers' ? 'page' : undefined}>
              Providers
            </a>
            <a href={followingHref()} aria-current={tab === 'following' ? 'page' : undefined}>
              Following <FollowingCount />
            </a>
            <a href={signalsHref()} aria-current={tab === 'signals' ? 'page' : undefined}>
              Signals
            </a>
            <a href={sessionsHref()} aria-current={tab === 'sessions' ? 'page' : undefined}>
              Sessions
            </a>
            <a href={walletsHref()} aria-current={tab === 'wallets' ? 'page' : undefined}>
              Wallets
            </a>
          </nav>
          <SessionBar />
        </div>
      </header>
      <NoticeBanner />
      <main className="content">
        <Screen route={route} />
      </main>
      <footer className="footer">
        Demo app of the Signal provider API, built on <code>@signal/sdk</code> · <a href="/docs">API reference</a>
      </footer>
    </>
  );
}
