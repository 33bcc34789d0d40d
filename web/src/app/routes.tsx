// The app's pages, one real URL each (CONTRACT "Web app"); the server answers every one of them
// with the app (src/http/web-app.ts WEB_PAGE_ROUTES), so reloads and deep links work.
// Every page is its own chunk, loaded when first shown (`page` below); on the first load, the chunks
// of the address's routes (the campaign's frame and its page) are asked for at once, not one after
// the other. The first visit downloads the app's frame and that page, not the whole app (its
// budget: test/e2e/bundle-size.test.ts). The declarative router: the data router's code (loaders,
// actions, fetchers), which the app does not use, is not downloaded.
import { useEffect, useReducer, type ComponentType } from 'react';
import { matchRoutes, Outlet, useRoutes, type RouteObject } from 'react-router';
import { NotFound, PageLoading, SignedIn, SkipLink } from './layout';

type Load = () => Promise<unknown>;

// A new release removed the chunks this tab's app was built with (hashed names): a page's code
// cannot load, so the tab loads the new app, at most once a minute (no loop when the server is away).
window.addEventListener('vite:preloadError', (event) => {
  const last = Number(sessionStorage.getItem('loreforge.reloaded') ?? 0);
  if (Date.now() - last < 60_000) return;
  event.preventDefault();
  sessionStorage.setItem('loreforge.reloaded', String(Date.now()));
  window.location.reload();
});

/**
 * A page exported as `name` by the module `load` imports: loaded once, when first shown or preloaded.
 * Not React.lazy: React holds back a suspended page's reveal until 300 ms after the last fallback it
 * showed, and the campaign's frame and its page are two such reveals, one inside the other (the
 * thing page's text came about 600 ms after its data, on every first load). Here a page whose code
 * has arrived is drawn at once, in the same render as the frame around it; one whose code has not
 * shows the stand-in until it has (an ordinary state update, drawn when it comes). A module that
 * fails to load is thrown while rendering, as React.lazy does.
 */
export function page<M>(load: () => Promise<M>, name: keyof M): Pick<RouteObject, 'element' | 'handle'> {
  let loading: Promise<M> | undefined;
  let loaded: { Page: ComponentType } | { failure: unknown } | undefined;
  const once = () =>
    (loading ??= load().then(
      (module) => {
        // Nothing when the code could not be had and the tab is loading the new release (above).
        if (module) loaded = { Page: module[name] as ComponentType };
        return module;
      },
      (failure: unknown) => {
        loaded = { failure };
        throw failure;
      },
    ));
  function Page() {
    const [, arrived] = useReducer((count: number) => count + 1, 0);
    // What this first render drew: the stand-in waits for the code even if it arrived between this
    // render and its effects (then `then` answers at once): a stand-in must not outlive its code.
    const waiting = loaded === undefined;
    useEffect(() => {
      if (waiting) void once().then(arrived, arrived);
    }, [waiting]);
    if (loaded === undefined) return <PageLoading />;
    if ('failure' in loaded) throw loaded.failure;
    return <loaded.Page />;
  }
  return {
    // Its own stand-in: while it loads, the frame around it (top bar, campaign sidebar) stays.
    element: <Page />,
    handle: { load: once satisfies Load },
  };
}

/** Pages open to anyone: the skip link first, then the page. */
function Public() {
  return (
    <>
      <SkipLink />
      <Outlet />
    </>
  );
}

const routes: RouteObject[] = [
  {
    element: <Public />,
    children: [
      { path: '/sign-in', ...page(() => import('../account/auth'), 'SignInPage') },
      { path: '/sign-up', ...page(() => import('../account/auth'), 'SignUpPage') },
      { path: '/join', ...page(() => import('../members/join-page'), 'JoinPage') },
      { path: '/reset-password', ...page(() => import('../account/reset-password'), 'ResetPasswordPage') },
      { path: '*', element: <NotFound /> },
    ],
  },
  {
    element: <SignedIn />,
    children: [
      { path: '/', ...page(() => import('../campaigns/campaigns-page'), 'CampaignsPage') },
      { path: '/campaigns', ...page(() => import('../campaigns/campaigns-page'), 'CampaignsPage') },
      { path: '/account', ...page(() => import('../account/account-page'), 'AccountPage') },
      { path: '/import', ...page(() => import('../import/import-page'), 'ImportPage') },
      {
        path: '/campaigns/:campaignSlug',
        ...page(() => import('./campaign-shell'), 'CampaignShell'),
        children: [
          { index: true, ...page(() => import('../campaigns/campaign-home'), 'CampaignHome') },
          { path: 'things/:thingSlug', ...page(() => import('../things/thing-page'), 'ThingPage') },
          { path: 'arcs/:arcSlug', ...page(() => import('../arcs/arc-page'), 'ArcPage') },
          { path: 'types/:thingTypeId', ...page(() => import('../things/thing-type-page'), 'ThingTypePage') },
          { path: 'search', ...page(() => import('../search/search-page'), 'SearchPage') },
          { path: 'members', ...page(() => import('../members/members-page'), 'MembersPage') },
          { path: 'trash', ...page(() => import('../history/trash-page'), 'TrashPage') },
        ],
      },
    ],
  },
];

/** Starts loading the code of every route the address matches, all at once. */
export function preloadRoutesOf(location: { pathname: string }): void {
  for (const match of matchRoutes(routes, location) ?? []) (match.route.handle as { load?: Load } | undefined)?.load?.().catch(() => undefined);
}

/** The page for the address (inside a BrowserRouter). */
export function AppRoutes() {
  return useRoutes(routes);
}
