/**
 * The service's configuration, parsed once from the environment with the table in variables.ts.
 * Nothing else reads process.env. A bad value stops the start with a message naming the variable.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { VARIABLES } from './variables.js';

type Variables = (typeof VARIABLES)[number];
type Value<V extends Variables> = z.output<V['schema']>;
type GroupOf<K> = K extends `${infer G}.${string}` ? G : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The configuration, inferred from the table: each variable under its `key`, nested one level when
 * the key is `group.key` (`webhooks.retrySchedule`). The meaning of each is its `doc` in variables.ts.
 */
export type Config = Simplify<
  { [V in Variables as V['key'] extends `${string}.${string}` ? never : V['key']]: Value<V> } & {
    [G in GroupOf<Variables['key']>]: Simplify<{
      [V in Variables as V['key'] extends `${G}.${infer K}` ? K : never]: Value<V>;
    }>;
  }
>;

/** Every variable the service reads; `.env.example` lists each of them (a test holds it to this). */
export const CONFIG_VARIABLES = VARIABLES.map((v) => v.env);

const EnvSchema = z.object(Object.fromEntries(VARIABLES.map((v) => [v.env, v.schema])));

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data as Record<string, unknown>;
  // Rules across variables, which the table's one-variable types cannot say.
  if (e.DATABASE_READ_URL && !e.DATABASE_URL) {
    throw new ConfigError('Invalid configuration: DATABASE_READ_URL: needs DATABASE_URL (a replica of that primary)');
  }
  if ((e.HEADERS_TIMEOUT_MS as number) > (e.REQUEST_TIMEOUT_MS as number)) {
    throw new ConfigError('Invalid configuration: HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS');
  }
  // DATA_DIR relative to the working directory (resolve keeps an absolute one as it is).
  e.DATA_DIR = resolve(cwd, e.DATA_DIR as string);
  const config: Record<string, unknown> = {};
  for (const v of VARIABLES) {
    const [group, key] = v.key.includes('.') ? v.key.split('.') : [undefined, v.key];
    let target = config;
    if (group) {
      config[group] ??= {};
      target = config[group] as Record<string, unknown>;
    }
    target[key as string] = e[v.env];
  }
  return config as Config;
}
