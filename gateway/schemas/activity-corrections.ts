/**
 * What a correction of an activity takes and answers (`/api/v1/ext/activities/{activity_id}`, issue 28 item
 * 5), shared by the API and the athlete's page so both refuse the same input with the same words:
 *
 * | field | rule |
 * |---|---|
 * | sport | a well-formed Open Sport Taxonomy sport, at most 128 characters, legacy names mapped (as uploads and tests take it; sports newer than the bundled taxonomy are kept) |
 * | tags | at most 100, each 1–200 characters after trimming, no control or invisible characters; repeats dropped, order kept |
 * | notes | at most 2000 characters (as trace notes), no control or invisible characters except line breaks and tabs; CRLF stored as LF; `""` clears them |
 *
 * Every key is optional and `null` means absent (gaps.md: clients send every key), so `{"sport": null, "tags":
 * ["race"], "notes": null}` changes the tags only; an unknown key is a 422 (a misspelt field never passes
 * silently), and so is a body that changes nothing. Kept honest by test/gateway/activity-corrections.test.ts.
 */
import { z } from 'zod';
import { named } from './components.js';
import { canonicalSport, MAX_SPORT_LENGTH } from '../../domain/sport.js';
import { MAX_TAG_LENGTH, MAX_TAGS } from './records.js';
import { nameProblem } from './names.js';

/** Longest notes, characters (as a trace's notes). */
export const MAX_NOTES_LENGTH = 2000;

/** The form a sport takes, for messages. */
export const SPORT_FORM = 'an Open Sport Taxonomy sport: lowercase words joined by "_", dotted from the root down, then optional +modifiers (cycling.road, running+stationary)';

const sport = z.string().max(MAX_SPORT_LENGTH).transform((text, ctx): string => {
  const canonical = canonicalSport(text);
  if (canonical !== null) return canonical;
  ctx.addIssue({ code: 'custom', message: `'${text}' is not ${SPORT_FORM}`, input: text });
  return z.NEVER;
}).meta({ description: 'Open Sport Taxonomy; legacy names are mapped', examples: ['cycling.road'] });

const tag = z.string().superRefine((text, ctx) => {
  const problem = nameProblem(text);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, input: text });
}).transform((text) => text.trim()).pipe(z.string().min(1, 'a tag holds 1 to 200 characters (trimmed)').max(MAX_TAG_LENGTH, 'a tag holds 1 to 200 characters (trimmed)'));

const tags = z.array(tag).max(MAX_TAGS).transform((list) => [...new Set(list)]);

const notes = z.string().max(MAX_NOTES_LENGTH).transform((text) => text.replace(/\r\n?/g, '\n')).superRefine((text, ctx) => {
  // Line breaks and tabs are how notes are written; every other character a name refuses, notes refuse too.
  const problem = nameProblem(text.replace(/[\n\t]/g, ' '));
  if (problem) ctx.addIssue({ code: 'custom', message: problem, input: text });
});

export const ActivityCorrectionWrite = named('ActivityCorrectionWrite', z.strictObject({
  sport: sport.nullable().optional(),
  tags: tags.nullable().optional().describe('Replaces the tags; [] removes them all'),
  notes: notes.nullable().optional().describe('Replaces the notes; "" removes them'),
}).refine((body) => body.sport != null || body.tags != null || body.notes != null, 'name at least one of sport, tags, notes')
  .meta({ description: 'The fields to change; absent or null leaves one as it is' }));

export type ActivityCorrectionInput = z.output<typeof ActivityCorrectionWrite>;

export const ActivityCorrections = named('ActivityCorrections', z.object({
  activity_id: z.string(),
  sport: z.string().describe('Open Sport Taxonomy, canonical'),
  tags: z.array(z.string()).describe("As the activity's `tags` in the interface's objects"),
  notes: z.string().nullable().describe("The athlete's notes; not part of the interface's objects"),
}));
