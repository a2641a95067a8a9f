/**
 * Account status as one pure function (interface §2 "Account status"; gaps.md "Account status"): from
 * what the user has connected, what the calling token was granted and what the calling application
 * declares, the status of every capability and at most one issue. No store, no clock: the route's
 * loader (gateway/services/account-status.ts) gathers the facts. Kept honest by the table in
 * test/domain/account-status.test.ts, one row per issue code and per status.
 *
 * Capability rules (ours where the interface is silent; the first rule that applies wins):
 *
 * | capability       | rule                                                   | status          | issue code                   |
 * |------------------|--------------------------------------------------------|-----------------|------------------------------|
 * | activities       | token lacks activities:read                            | action_required | activities_not_granted       |
 * |                  | no live connection shares activities, and one needs    | action_required | activities_blocked_upstream  |
 * |                  |   attention upstream or withholds them there            |                 |                              |
 * |                  | no live connection shares activities, no uploaded file  | action_required | no_source_connected          |
 * |                  | otherwise                                              | ready           |                              |
 * | activity_history | token lacks activities:read                            | action_required | activity_history_not_granted |
 * |                  | the two source rules of activities                      | action_required | (the same codes)             |
 * |                  | a live connection shares activities, not their history  | action_required | activities_blocked_upstream  |
 * |                  | a live connection is still loading its history          | syncing         | sync_pending                 |
 * |                  | otherwise                                              | ready           |                              |
 * | dailies          | token lacks wellness:read                              | action_required | dailies_not_granted          |
 * |                  | a live connection delivers dailies, or one was entered | ready           |                              |
 * |                  | no provider on this server delivers dailies            | unavailable     |                              |
 * |                  | otherwise                                              | action_required | dailies_no_source            |
 * | workouts         | token lacks workouts:write                             | action_required | workouts_not_granted         |
 * |                  | a live connection accepts workouts                     | ready           |                              |
 * |                  | no provider on this server accepts workouts            | unavailable     |                              |
 * |                  | otherwise                                              | action_required | workouts_no_source           |
 *
 * A live connection has status `connected`; one with `action_required` needs the user upstream (a token
 * to renew, an authorization revoked). A live connection may still withhold a capability: the user did not
 * grant it at the provider (Garmin's permissions, domain/provider-permissions.ts), so it is no source of
 * that capability, and the issue's message says to allow it there rather than to connect a platform.
 * Uploaded files count as a source of activities, so a user who only uploads is never nagged to connect.
 *
 * The issue: "Issues are reported only for the capabilities the calling application declares"; among
 * them, the first code in ISSUE_CODES order (gaps.md's list: things to do before things in progress). The
 * `not_granted` codes have no destination (the app must ask for the access again; the portal cannot
 * grant it); the others point at `manage-integrations`, where connections and their sync are shown.
 * "issue.destination … is always unset on a delegated token", and on a personal token, which cannot open
 * a portal session either.
 */
import { DAILY_PROVIDERS, WORKOUT_PROVIDERS, type Provider } from './providers.js';

export const CAPABILITIES = ['activities', 'activity_history', 'dailies', 'workouts'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** "Capability status values (closed set of four)". */
export type CapabilityStatus = 'ready' | 'syncing' | 'action_required' | 'unavailable';

/** gaps.md's closed list, in the order an issue is picked. */
export const ISSUE_CODES = [
  'no_source_connected', 'activities_not_granted', 'activities_blocked_upstream', 'activity_history_not_granted',
  'dailies_not_granted', 'dailies_no_source', 'workouts_not_granted', 'workouts_no_source', 'sync_pending',
] as const;
export type IssueCode = (typeof ISSUE_CODES)[number];

export const PORTAL_DESTINATIONS = ['manage-integrations', 'manage-teams'] as const;
export type PortalDestination = (typeof PORTAL_DESTINATIONS)[number];

/** "default `activities`, `activity_history`" when an application declares nothing. */
export const DEFAULT_CAPABILITIES: readonly Capability[] = ['activities', 'activity_history'];

export interface ConnectionFacts {
  provider: Provider;
  status: 'connected' | 'action_required' | 'disconnected';
  /** The backfill has loaded the whole history. */
  backfillDone: boolean;
  /** Capabilities the user did not grant at the provider (none when unknown). */
  withheld?: readonly Capability[];
}

export interface AccountFacts {
  /** Scopes of the calling token. */
  granted: ReadonlySet<string>;
  /** The calling application's declared capabilities; unknown keys are ignored. */
  declared: readonly string[];
  connections: readonly ConnectionFacts[];
  /** The user has uploaded at least one activity file. */
  hasUploads: boolean;
  /** The user has at least one daily value entered through the API. */
  hasEnteredDailies: boolean;
  /** Providers this server has an integration configured for. */
  configuredProviders: readonly Provider[];
  /**
   * The calling token may open a portal session (an app token that is not delegated). When it may not,
   * issue.destination stays unset: "always unset on a delegated token", and a personal token gets 400.
   */
  portal: boolean;
}

export interface AccountIssue {
  code: IssueCode;
  status: 'action_required' | 'syncing';
  message: string;
  destination: PortalDestination | null;
}

export interface AccountStatus {
  issue: AccountIssue | null;
  capabilities: Record<Capability, CapabilityStatus>;
}

const MESSAGES: Readonly<Record<IssueCode, string>> = {
  no_source_connected: 'No activities can arrive yet: connect a training platform or upload an activity file.',
  activities_not_granted: 'This app may not read your activities. Connect it again and allow access to your activities.',
  activities_blocked_upstream: 'Your training platform has stopped sharing activities. Reconnect it to continue.',
  activity_history_not_granted: 'This app may not read your activity history. Connect it again and allow access to your activities.',
  dailies_not_granted: 'This app may not read your daily measures. Connect it again and allow access to your wellness data.',
  dailies_no_source: 'No daily measures arrive yet: connect Garmin Connect or intervals.icu.',
  workouts_not_granted: 'This app may not schedule workouts. Connect it again and allow it to schedule workouts.',
  workouts_no_source: 'Workouts cannot reach a device yet: connect Garmin Connect, intervals.icu or Wahoo.',
  sync_pending: 'Your training history is still being imported. This can take a while.',
};

/** The message instead of the code's own when a connected platform withholds the capability. */
const WITHHELD_MESSAGES: Readonly<Record<Capability, string>> = {
  activities: 'Your training platform is connected but does not share your activities. Allow it in the platform\'s settings for this app, or reconnect.',
  activity_history: 'Your training platform does not share your activity history, so older activities are not imported. Allow it in the platform\'s settings for this app.',
  dailies: 'Your training platform does not share your daily measures. Allow it in the platform\'s settings for this app.',
  workouts: 'Your training platform does not accept workouts from this service. Allow it in the platform\'s settings for this app.',
};

type Verdict = { status: CapabilityStatus; code: IssueCode | null; message?: string };

const READY: Verdict = { status: 'ready', code: null };
const UNAVAILABLE: Verdict = { status: 'unavailable', code: null };
const needs = (code: IssueCode, message?: string): Verdict => (message ? { status: 'action_required', code, message } : { status: 'action_required', code });

export function accountStatus(facts: AccountFacts): AccountStatus {
  const verdicts: Record<Capability, Verdict> = {
    activities: activities(facts),
    activity_history: activityHistory(facts),
    dailies: dailies(facts),
    workouts: workouts(facts),
  };
  const declared = new Set(facts.declared);
  const considered = CAPABILITIES.filter((key) => declared.has(key)).map((key) => verdicts[key]);
  const code = ISSUE_CODES.find((candidate) => considered.some((verdict) => verdict.code === candidate)) ?? null;
  return {
    issue: code && {
      code,
      status: code === 'sync_pending' ? 'syncing' : 'action_required',
      message: considered.find((verdict) => verdict.code === code)?.message ?? MESSAGES[code],
      destination: !facts.portal || code.endsWith('_not_granted') ? null : 'manage-integrations',
    },
    capabilities: {
      activities: verdicts.activities.status,
      activity_history: verdicts.activity_history.status,
      dailies: verdicts.dailies.status,
      workouts: verdicts.workouts.status,
    },
  };
}

function live(facts: AccountFacts): ConnectionFacts[] {
  return facts.connections.filter((connection) => connection.status === 'connected');
}

function withholds(connection: ConnectionFacts, capability: Capability): boolean {
  return connection.withheld?.includes(capability) ?? false;
}

/** Live connections that share `capability` (not withheld at the provider). */
function sharing(facts: AccountFacts, capability: Capability): ConnectionFacts[] {
  return live(facts).filter((connection) => !withholds(connection, capability));
}

/** Whether a live connection of one of `providers` withholds `capability`. */
function withheldBy(facts: AccountFacts, capability: Capability, providers?: ReadonlySet<Provider>): boolean {
  return live(facts).some((connection) => (!providers || providers.has(connection.provider)) && withholds(connection, capability));
}

/** The two source rules activities and their history share; null when a source exists. */
function activitySource(facts: AccountFacts): Verdict | null {
  if (sharing(facts, 'activities').length > 0) return null;
  if (withheldBy(facts, 'activities')) return needs('activities_blocked_upstream', WITHHELD_MESSAGES.activities);
  if (facts.connections.some((connection) => connection.status === 'action_required')) return needs('activities_blocked_upstream');
  return facts.hasUploads ? null : needs('no_source_connected');
}

function activities(facts: AccountFacts): Verdict {
  if (!facts.granted.has('activities:read')) return needs('activities_not_granted');
  return activitySource(facts) ?? READY;
}

function activityHistory(facts: AccountFacts): Verdict {
  if (!facts.granted.has('activities:read')) return needs('activity_history_not_granted');
  const source = activitySource(facts);
  if (source) return source;
  const sources = sharing(facts, 'activities');
  if (sources.some((connection) => withholds(connection, 'activity_history'))) return needs('activities_blocked_upstream', WITHHELD_MESSAGES.activity_history);
  return sources.some((connection) => !connection.backfillDone) ? { status: 'syncing', code: 'sync_pending' } : READY;
}

function dailies(facts: AccountFacts): Verdict {
  if (!facts.granted.has('wellness:read')) return needs('dailies_not_granted');
  if (facts.hasEnteredDailies || sharing(facts, 'dailies').some((connection) => DAILY_PROVIDERS.has(connection.provider))) return READY;
  if (withheldBy(facts, 'dailies', DAILY_PROVIDERS)) return needs('dailies_no_source', WITHHELD_MESSAGES.dailies);
  return facts.configuredProviders.some((provider) => DAILY_PROVIDERS.has(provider)) ? needs('dailies_no_source') : UNAVAILABLE;
}

function workouts(facts: AccountFacts): Verdict {
  if (!facts.granted.has('workouts:write')) return needs('workouts_not_granted');
  if (sharing(facts, 'workouts').some((connection) => WORKOUT_PROVIDERS.has(connection.provider))) return READY;
  if (withheldBy(facts, 'workouts', WORKOUT_PROVIDERS)) return needs('workouts_no_source', WITHHELD_MESSAGES.workouts);
  return facts.configuredProviders.some((provider) => WORKOUT_PROVIDERS.has(provider)) ? needs('workouts_no_source') : UNAVAILABLE;
}
