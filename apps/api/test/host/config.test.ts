/**
 * Configuration is read once from the environment; a bad value stops the start with a
 * message naming the variable.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/index.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: '/srv/app/.data',
      seedProviders: 100,
      nonceTtlSeconds: 300,
      authRateLimitPerMinute: 60,
      jwtIssuer: 'signal-auth',
      jwtAudience: 'signal-api',
      trustProxy: { hops: 0 },
      corsOrigins: [],
    });
  });

  it('reads every variable, treating empty strings as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u@db:5432/signal',
      DATA_DIR: '/var/lib/signal',
      SEED_PROVIDERS: '0',
      NONCE_TTL_SECONDS: '60',
      AUTH_RATE_LIMIT_PER_MINUTE: '0',
      JWT_ISSUER: '',
      TRUST_PROXY: 'true',
      CORS_ORIGINS: 'https://a.example, https://b.example',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u@db:5432/signal',
      dataDir: '/var/lib/signal',
      seedProviders: 0,
      nonceTtlSeconds: 60,
      authRateLimitPerMinute: 0,
      jwtIssuer: 'signal-auth',
      trustProxy: { hops: 1 },
      corsOrigins: ['https://a.example', 'https://b.example'],
    });
  });

  it('reads TRUST_PROXY as hops (true = 1, false = 0) or a list of proxy CIDR blocks', () => {
    const trust = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;
    expect(trust('false')).toEqual({ hops: 0 });
    expect(trust('0')).toEqual({ hops: 0 });
    expect(trust('true')).toEqual({ hops: 1 });
    expect(trust('2')).toEqual({ hops: 2 });
    expect(trust('10.0.0.0/8, 192.168.1.7, fd00::/8')).toMatchObject({
      cidrs: ['10.0.0.0/8', '192.168.1.7/32', 'fd00::/8'],
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['NONCE_TTL_SECONDS', '1e3'],
    ['SEED_PROVIDERS', '-1'],
    ['DATABASE_URL', 'not a url'],
    ['TRUST_PROXY', 'maybe'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.0/8, proxy.example'],
    ['TRUST_PROXY', '99'],
    ['LOG_LEVEL', 'loud'],
    ['JWT_PREVIOUS_PUBLIC_KEYS', 'no pem here'],
    ['DATABASE_PREPARED_STATEMENTS', 'maybe'],
    ['DATABASE_READ_URL', 'not a url'],
    // A replica without its primary: the embedded database has none.
    ['DATABASE_READ_URL', 'postgres://u@replica:5432/signal'],
    ['DATABASE_READ_MAX_LAG_SECONDS', '-1'],
  ])('rejects %s=%s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('reads SIGN_IN_DOMAIN as a list of host[:port], lower-cased, each checked', () => {
    expect(loadConfig({}).signInDomains).toEqual([]);
    expect(
      loadConfig({ SIGN_IN_DOMAIN: ' App.Example.com, www.example.com:8443 ,app.example.com' }).signInDomains,
    ).toEqual(['app.example.com', 'www.example.com:8443']);
    for (const value of ['https://app.example.com', 'app.example.com, bad host', 'app.example.com:99999']) {
      expect(() => loadConfig({ SIGN_IN_DOMAIN: value }), value).toThrow('SIGN_IN_DOMAIN');
    }
  });

  it('reads the chain node for contract wallets: off by default, a 5 s time box', () => {
    expect(loadConfig({})).toMatchObject({ evmRpcUrl: undefined, evmRpcTimeoutMs: 5000 });
    expect(loadConfig({ EVM_RPC_URL: 'https://rpc.example/v1/key', EVM_RPC_TIMEOUT_MS: '800' })).toMatchObject({
      evmRpcUrl: 'https://rpc.example/v1/key',
      evmRpcTimeoutMs: 800,
    });
    for (const [name, value] of [
      ['EVM_RPC_URL', 'ws://node:8546'],
      ['EVM_RPC_URL', 'node:8545'],
      ['EVM_RPC_TIMEOUT_MS', '0'],
      ['EVM_RPC_TIMEOUT_MS', '5s'],
    ]) {
      expect(() => loadConfig({ [name as string]: value })).toThrow(name);
    }
  });

  it('stops the real process with exit code 1 and the message, before listening', () => {
    const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
    const result = spawnSync(process.execPath, [main], {
      env: { ...process.env, PORT: 'not-a-port', DATABASE_URL: '' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT');
  });
});
