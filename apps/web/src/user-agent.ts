/**
 * A session's device in words, from the User-Agent it signed in with: "Chrome on macOS",
 * "Safari on iPhone", "curl". Good enough to recognise one's own devices; a browser that
 * disguises itself as another (Brave as Chrome, iPadOS as macOS) is named as it claims.
 */

export type DeviceKind = 'desktop' | 'phone' | 'tablet' | 'program' | 'unknown';

export interface Device {
  /** "Chrome on macOS", "Safari on iPhone", "Firefox", "curl", "Unknown device". */
  name: string;
  kind: DeviceKind;
}

/** Checked in order: Edge, Opera and Samsung Internet also say "Chrome" and "Safari"; Chrome says "Safari". */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera|OPiOS)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\b(?:iPhone|iPad).*\bMobile\//, 'Safari'],
];

/** [pattern, system, kind]; iPhone and iPad before macOS ("like Mac OS X"), Android before Linux. */
const SYSTEMS: [RegExp, string, DeviceKind][] = [
  [/\biPhone\b|\biPod\b/, 'iPhone', 'phone'],
  [/\biPad\b/, 'iPad', 'tablet'],
  [/\bAndroid\b.*\bMobile\b/, 'Android', 'phone'],
  [/\bAndroid\b/, 'Android tablet', 'tablet'],
  [/\bCrOS\b/, 'ChromeOS', 'desktop'],
  [/\bWindows\b/, 'Windows', 'desktop'],
  [/\bMacintosh\b|\bMac OS X\b/, 'macOS', 'desktop'],
  [/\bLinux\b|\bX11\b/, 'Linux', 'desktop'],
];

/** Programs rather than browsers: HTTP clients and runtimes that name themselves first. */
const PROGRAMS: [RegExp, string][] = [
  [/^curl\//i, 'curl'],
  [/^Wget\//i, 'Wget'],
  [/^PostmanRuntime\//, 'Postman'],
  [/^insomnia\//i, 'Insomnia'],
  [/^python-requests\/|^python-httpx\/|^Python-urllib\//i, 'Python'],
  [/^Go-http-client\//, 'Go program'],
  [/^okhttp\//i, 'Android app'],
  [/^(?:node|undici)\b|^node-fetch\/|^axios\//i, 'Node.js'],
  [/^Bun\//, 'Bun'],
  [/^Deno\//, 'Deno'],
];

export function describeDevice(userAgent: string | null | undefined): Device {
  const text = userAgent?.trim() ?? '';
  if (text === '') return { name: 'Unknown device', kind: 'unknown' };
  for (const [pattern, name] of PROGRAMS) {
    if (pattern.test(text)) return { name, kind: 'program' };
  }
  const browser = BROWSERS.find(([pattern]) => pattern.test(text))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(text));
  if (browser && system) return { name: `${browser} on ${system[1]}`, kind: system[2] };
  if (browser) return { name: browser, kind: 'unknown' };
  if (system) return { name: system[1], kind: system[2] };
  // Something that is not a browser, e.g. "MyBot/2.1 (+https://…)": its own first word.
  const product = /^([A-Za-z][\w.-]{0,39})\//.exec(text)?.[1];
  return { name: product ?? 'Unknown device', kind: product ? 'program' : 'unknown' };
}
