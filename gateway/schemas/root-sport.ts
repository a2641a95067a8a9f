/**
 * A root sport in a request: any well-formed Open Sport Taxonomy string, legacy names mapped, that is a
 * top-level sport with no modifier (`cycling`, `running`, `xc_skiing`). Markers and max efforts belong to
 * a root sport (gaps.md "Markers", "Max efforts"); a sub-sport or a modifier is a 422 naming the rule.
 */
import { sportSchema, rootSport } from '../../domain/sport.js';

export const ROOT_SPORT_MESSAGE = 'a root sport only (cycling, running, …): no sub-sport, no modifier';

export const rootSportSchema = sportSchema.refine((sport) => rootSport(sport) === sport, { message: ROOT_SPORT_MESSAGE });
