// The app's pages, one real URL each (CONTRACT "Web app"); the server answers every one of them
// with the app (src/http/web-app.ts WEB_PAGE_ROUTES), so reloads and deep links work.
import { createBrowserRouter } from 'react-router';
import { AccountPage } from './pages/account';
import { ArcPage } from './pages/arc';
import { SignInPage, SignUpPage } from './pages/auth';
import { CampaignHome } from './pages/campaign-home';
import { CampaignShell } from './pages/campaign-shell';
import { CampaignsPage } from './pages/campaigns';
import { ImportPage } from './pages/import';
import { JoinPage } from './pages/join';
import { MembersPage } from './pages/members';
import { NotFound, SignedIn } from './pages/layout';
import { ResetPasswordPage } from './pages/reset-password';
import { SearchPage } from './pages/search';
import { ThingPage } from './pages/thing';
import { ThingTypePage } from './pages/thing-type';
import { TrashPage } from './trash/trash-page';

export const router = createBrowserRouter([
  { path: '/sign-in', element: <SignInPage /> },
  { path: '/sign-up', element: <SignUpPage /> },
  { path: '/join', element: <JoinPage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  {
    element: <SignedIn />,
    children: [
      { path: '/', element: <CampaignsPage /> },
      { path: '/campaigns', element: <CampaignsPage /> },
      { path: '/account', element: <AccountPage /> },
      { path: '/import', element: <ImportPage /> },
      {
        path: '/campaigns/:campaignSlug',
        element: <CampaignShell />,
        children: [
          { index: true, element: <CampaignHome /> },
          { path: 'things/:thingSlug', element: <ThingPage /> },
          { path: 'arcs/:arcSlug', element: <ArcPage /> },
          { path: 'types/:thingTypeId', element: <ThingTypePage /> },
          { path: 'search', element: <SearchPage /> },
          { path: 'members', element: <MembersPage /> },
          { path: 'trash', element: <TrashPage /> },
        ],
      },
    ],
  },
  { path: '*', element: <NotFound /> },
]);
