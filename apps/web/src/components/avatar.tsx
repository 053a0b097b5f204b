import { useState } from 'react';
import { apiAsset } from '../api';

/** "Hyper Wolf Research" → "HW". */
function initials(name: string): string {
  const words = name.split(/\s+/).filter(Boolean);
  return words
    .slice(0, 2)
    .map((word) => word[0]?.toUpperCase() ?? '')
    .join('');
}

/**
 * The provider's avatar (a URL relative to the API, such as `/avatars/<seed>.svg`), or its
 * initials on a colour of its own when it has none or the image fails to load.
 */
export function Avatar({ name, url, id, size = 36 }: { name: string; url: string | null; id: number; size?: number }) {
  const [broken, setBroken] = useState(false);
  const style = { width: size, height: size, fontSize: Math.round(size * 0.4) };
  if (url && !broken) {
    return (
      <img className="avatar" src={apiAsset(url)} alt="" width={size} height={size} onError={() => setBroken(true)} />
    );
  }
  const hue = (id * 137) % 360;
  return (
    <span
      className="avatar avatar-initials"
      style={{ ...style, backgroundColor: `hsl(${hue} 55% 88%)`, color: `hsl(${hue} 45% 30%)` }}
      aria-hidden="true"
    >
      {initials(name)}
    </span>
  );
}
