import { useState } from 'react';
import { Avatar } from '../components/avatar';
import { Pagination } from '../components/pagination';
import { SignedInPage } from '../components/signed-in-page';
import { Empty, ErrorPanel, Loading, PastTheEnd } from '../components/states';
import { formatAgo, formatCount } from '../format';
import { catalogueHref, DEFAULT_VIEW, followingHref, providerHref } from '../router';
import { useSession } from '../session';
import { useAsync } from '../use-async';

const PAGE_SIZE = 20;

function FollowingList({ page }: { page: number }) {
  const { client, authed, refresh, markFollowed } = useSession();
  const { state, reload } = useAsync(
    () => authed((active) => active.me.following({ page, limit: PAGE_SIZE })),
    [client, page],
  );
  const [leaving, setLeaving] = useState<number>();

  const unfollow = async (id: number) => {
    setLeaving(id);
    try {
      await authed((active) => active.providers.unfollow(id));
      markFollowed(id, false);
      reload();
      refresh();
    } catch {
      // The banner (session ended) or the reload's error panel says what happened.
    } finally {
      setLeaving(undefined);
    }
  };

  const data = state.data;
  if (state.status === 'error') return <ErrorPanel error={state.error} onRetry={reload} />;
  if (data === undefined) return <Loading label="Loading the providers you follow…" />;
  if (data.total === 0) {
    return (
      <Empty title="You don't follow any providers yet">
        <a href={catalogueHref(DEFAULT_VIEW)}>Browse the catalogue</a> and follow the ones you want to hear from.
      </Empty>
    );
  }
  if (data.items.length === 0) {
    return <PastTheEnd page={page} firstPage={followingHref()} />;
  }
  return (
    <div className="card">
      <ul className="following" aria-busy={state.status === 'loading'} data-testid="following">
        {data.items.map((provider) => (
          <li key={provider.id} data-provider-id={provider.id}>
            <a className="provider-cell" href={providerHref(provider.id)}>
              <Avatar name={provider.name} url={provider.avatarUrl} id={provider.id} size={44} />
              <span>
                <span className="provider-name">{provider.name}</span>
                <span className="provider-description">
                  {formatCount(provider.followerCount)} followers · followed {formatAgo(provider.followedAt)}
                </span>
              </span>
            </a>
            <button
              type="button"
              className="button button-secondary"
              disabled={leaving === provider.id}
              onClick={() => void unfollow(provider.id)}
            >
              {leaving === provider.id ? 'Unfollowing…' : 'Unfollow'}
            </button>
          </li>
        ))}
      </ul>
      <Pagination of={data} noun="followed" href={followingHref} />
    </div>
  );
}

export function FollowingPage({ page }: { page: number }) {
  return (
    <SignedInPage
      title="Following"
      lede="Providers you follow, most recent first."
      prompt="Sign in to see the providers you follow"
    >
      <FollowingList page={page} />
    </SignedInPage>
  );
}
