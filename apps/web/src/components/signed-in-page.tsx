/** A screen only a signed-in user can use: Following, Sessions. */
import type { ReactNode } from 'react';
import { useSession } from '../session';
import { SignInButtons } from './session-bar';
import { Empty, Loading } from './states';

interface SignedInPageProps {
  title: string;
  lede: ReactNode;
  /** What signing in would show, above the sign-in buttons: "Sign in to see …". */
  prompt: string;
  /** The body once signed in (mounted only then). */
  children: ReactNode;
}

/** The heading always; the body once signed in, a spinner while a stored session is restored, else the prompt. */
export function SignedInPage({ title, lede, prompt, children }: SignedInPageProps) {
  const { session } = useSession();
  let body: ReactNode;
  if (session.status === 'restoring') body = <Loading label="Restoring your session…" />;
  else if (session.status !== 'signed-in') {
    body = (
      <Empty title={prompt}>
        <SignInButtons />
      </Empty>
    );
  } else body = children;
  return (
    <section>
      <header className="page-header">
        <h1>{title}</h1>
        <p className="lede">{lede}</p>
      </header>
      {body}
    </section>
  );
}
