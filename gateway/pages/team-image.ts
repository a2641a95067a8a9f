/**
 * The image a team stored without one answers with (services/team-links.ts): a 96×96 SVG of up to two
 * initials of its name on a colour picked from its id, so two teams rarely look alike. Text only, no
 * script, no external reference; the name is escaped by the html tag (its escapes are valid XML).
 * Kept honest by test/gateway/team-links.test.ts.
 */
import { createHash } from 'node:crypto';
import { html } from './html.js';

/** Backgrounds with white text at a contrast of at least 4.5:1. */
const COLOURS = ['#2457d6', '#0e7c66', '#8a3ffc', '#b42318', '#9e5a00', '#1d6f8a', '#5b4a9e', '#a3246a'];

/** "Riverside Cycling Club" → "RC"; a name without letters or digits → "T" (for team). */
export function teamInitials(name: string): string {
  const initials = name
    .split(/\s+/u)
    .map((word) => /[\p{L}\p{N}]/u.exec(word)?.[0])
    .filter((initial): initial is string => initial !== undefined)
    .slice(0, 2)
    .join('');
  return initials ? initials.toLocaleUpperCase('en') : 'T';
}

export function teamImageSvg(team: { id: string; name: string }): string {
  const colour = COLOURS[createHash('sha256').update(team.id).digest()[0]! % COLOURS.length]!;
  const initials = teamInitials(team.name);
  return html`<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96" role="img" aria-label="${team.name}">
<rect width="96" height="96" rx="16" fill="${colour}"/>
<text x="48" y="48" dy=".35em" text-anchor="middle" font-family="system-ui,-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif" font-size="${initials.length > 1 ? 36 : 44}" font-weight="700" fill="#fff">${initials}</text>
</svg>
`.value;
}
