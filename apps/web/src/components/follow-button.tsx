import type { FollowResult, UnfollowResult } from '@signal/sdk';
import { useState } from 'react';
import { announcedByBanner, describeProblem } from '../api';
import { useSession } from '../session';
import { SignInButtons } from './session-bar';

/**
 * Follow or unfollow (both idempotent on the API). The answer carries the provider's new
 * follower count, which the caller shows at once.
 */
export function FollowButton({
  providerId,
  onChange,
}: {
  providerId: number;
  onChange(result: FollowResult | UnfollowResult): void;
}) {
  const { session, followed, authed, refresh, markFollowed } = useSession();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();

  if (session.status !== 'signed-in') {
    return (
      <div className="follow-prompt">
        <span className="muted">Sign in to follow this provider</span>
        <SignInButtons />
      </div>
    );
  }
  const following = followed?.has(providerId) ?? false;
  const toggle = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      const result = await authed<FollowResult | UnfollowResult>((client) =>
        following ? client.providers.unfollow(providerId) : client.providers.follow(providerId),
      );
      markFollowed(providerId, result.following);
      onChange(result);
      refresh();
    } catch (error) {
      const described = describeProblem(error);
      // An ended session is announced by the banner (and the button becomes a sign-in prompt).
      if (!announcedByBanner(described)) setProblem(`${described.title}. ${described.detail}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="follow">
      <button
        type="button"
        className={`button ${following ? 'button-secondary' : 'button-primary'}`}
        aria-pressed={following}
        disabled={busy || followed === undefined}
        onClick={() => void toggle()}
      >
        {busy ? (following ? 'Unfollowing…' : 'Following…') : following ? 'Unfollow' : 'Follow'}
      </button>
      {problem ? (
        <p className="follow-error" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
