/**
 * The audit's HTTP reads (fetch only, browser-safe): a GET tried again when it fails before any
 * answer, its body as bytes, and a pool that keeps a bounded number of them in flight.
 */

export class HttpError extends Error {}

/**
 * GETs `url`; a request that fails before any answer (a reset connection, a kept-alive socket the
 * server closed) is tried again, up to three times: the answers are checked anyway, so a retry
 * cannot let anything through, and one dropped connection does not fail a long audit.
 */
export async function get(fetchImpl: typeof fetch, url: string): Promise<Response> {
  let response: Response | undefined;
  for (let attempt = 1; !response; attempt++) {
    try {
      response = await fetchImpl(url);
    } catch (error) {
      if (attempt >= 3) throw new HttpError(`${url}: ${error instanceof Error ? error.message : String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new HttpError(`${url}: HTTP ${response.status}`);
  }
  return response;
}

export async function getBytes(fetchImpl: typeof fetch, url: string): Promise<Uint8Array> {
  return new Uint8Array(await (await get(fetchImpl, url)).arrayBuffer());
}

/** Runs `work` on 0..count-1 with at most `limit` at once; the first error stops it. */
export async function pool(count: number, limit: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, run));
}
