import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

export const { up } = statementsMigration([
  // A nonce within the per-wallet cap in one round trip instead of a transaction's four
  // (begin, lock, insert, commit). The advisory lock serialises issuers of one wallet across
  // every server; it is held until the calling statement's transaction ends. In a volatile
  // function each statement takes a new snapshot (READ COMMITTED), so the count after the lock
  // sees every nonce committed before the lock was granted: the cap is exact.
  sql`
    create function issue_nonce_within_cap(
      p_nonce text, p_wallet text, p_issued_at timestamptz, p_expires_at timestamptz, p_max_unused integer
    ) returns table (issued boolean, live integer, oldest_expires_at timestamptz)
    language plpgsql volatile as $$
    declare
      held integer;
      oldest timestamptz;
    begin
      perform pg_advisory_xact_lock(hashtextextended('auth_nonces:' || p_wallet, 0));
      select count(*)::integer, min(n.expires_at) into held, oldest
        from auth_nonces n
        where n.wallet = p_wallet and n.used_at is null and n.expires_at > p_issued_at;
      if held < p_max_unused then
        insert into auth_nonces (nonce, wallet, issued_at, expires_at)
          values (p_nonce, p_wallet, p_issued_at, p_expires_at);
        return query select true, held + 1, least(oldest, p_expires_at);
      else
        return query select false, held, oldest;
      end if;
    end $$
  `,
]);
