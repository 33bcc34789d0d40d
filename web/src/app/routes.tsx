// The app's pages, one real URL each (CONTRACT "Web app"); the server answers every one of them
// with the app (src/http/web-app.ts WEB_PAGE_ROUTES), so reloads and deep links work.
import { createBrowserRouter } from 'react-router';
import { AccountPage } from '../account/account-page';
import { ArcPage } from '../arcs/arc-page';
import { SignInPage, SignUpPage } from '../account/auth';
import { CampaignHome } from '../campaigns/campaign-home';
import { CampaignShell } from './campaign-shell';
import { CampaignsPage } from '../campaigns/campaigns-page';
import { ImportPage } from '../import/import-page';
import { JoinPage } from '../members/join-page';
import { MembersPage } from '../members/members-page';
import { NotFound, SignedIn } from './layout';
import { ResetPasswordPage } from '../account/reset-password';
import { SearchPage } from '../search/search-page';
import { ThingPage } from '../things/thing-page';
import { ThingTypePage } from '../things/thing-type-page';
import { TrashPage } from '../history/trash-page';

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
