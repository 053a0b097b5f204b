import { createHash } from 'node:crypto';

/** Seeds are what the demo data writes: short hex strings; anything else is not an avatar. */
export const AVATAR_PATH = /^\/avatars\/([A-Za-z0-9_-]{1,64})\.svg$/;

/**
 * A deterministic identicon (5×5, mirrored) for a seed, so demo avatars need no network and
 * no storage: the same seed always draws the same picture.
 */
export function renderAvatar(seed: string): string {
  const hash = createHash('sha256').update(seed).digest();
  const hue = ((hash[0] as number) * 360) / 256;
  const fg = `hsl(${hue.toFixed(0)} 65% 50%)`;
  const bg = `hsl(${((hue + 180) % 360).toFixed(0)} 40% 94%)`;
  let cells = '';
  for (let row = 0; row < 5; row++) {
    for (let col = 0; col < 3; col++) {
      if (((hash[1 + row * 3 + col] as number) & 1) === 0) continue;
      cells += `<rect x="${col}" y="${row}" width="1" height="1"/>`;
      if (col < 2) cells += `<rect x="${4 - col}" y="${row}" width="1" height="1"/>`;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="-0.5 -0.5 6 6" width="96" height="96"><rect x="-0.5" y="-0.5" width="6" height="6" fill="${bg}"/><g fill="${fg}">${cells}</g></svg>`;
}
