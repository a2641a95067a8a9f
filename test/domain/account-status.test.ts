/**
 * domain/account-status.ts as a table: each row is a user's situation and the calling app's declaration,
 * and the status of every capability and the one issue expected. Every issue code of gaps.md has a row
 * (a final test checks that), so does every capability status value.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import {
  accountStatus, CAPABILITIES, ISSUE_CODES, type AccountFacts, type AccountStatus, type CapabilityStatus, type ConnectionFacts, type IssueCode,
} from '../../domain/account-status.js';

const ALL_READ = ['activities:read', 'wellness:read', 'workouts:write'];
const garmin = (over: Partial<ConnectionFacts> = {}): ConnectionFacts => ({ provider: 'garmin_connect', status: 'connected', backfillDone: true, ...over });
const wahoo = (over: Partial<ConnectionFacts> = {}): ConnectionFacts => ({ provider: 'wahoo', status: 'connected', backfillDone: true, ...over });

function facts(over: Partial<Omit<AccountFacts, 'granted'>> & { granted?: string[] } = {}): AccountFacts {
  return {
    declared: ['activities', 'activity_history', 'dailies', 'workouts'],
    connections: [],
    hasUploads: false,
    hasEnteredDailies: false,
    configuredProviders: ['garmin_connect', 'intervals_icu', 'wahoo'],
    portal: true,
    ...over,
    granted: new Set(over.granted ?? ALL_READ),
  };
}

type Caps = [CapabilityStatus, CapabilityStatus, CapabilityStatus, CapabilityStatus];
interface Row {
  name: string;
  facts: AccountFacts;
  /** activities, activity_history, dailies, workouts. */
  capabilities: Caps;
  issue: [IssueCode, 'action_required' | 'syncing', 'manage-integrations' | null] | null;
  /** What the issue's message must say, where it differs from the code's own. */
  message?: RegExp;
}

const ROWS: Row[] = [
  {
    name: 'a new user with nothing connected, all four declared: connect a source first',
    facts: facts(),
    capabilities: ['action_required', 'action_required', 'action_required', 'action_required'],
    issue: ['no_source_connected', 'action_required', 'manage-integrations'],
  },
  {
    name: 'a token without activities:read: both activity capabilities are not granted, activities first',
    facts: facts({ granted: ['wellness:read', 'workouts:write'], connections: [garmin()] }),
    capabilities: ['action_required', 'action_required', 'ready', 'ready'],
    issue: ['activities_not_granted', 'action_required', null],
  },
  {
    name: 'an app declaring only the history, without activities:read: activity_history_not_granted',
    facts: facts({ granted: [], declared: ['activity_history'], connections: [garmin()] }),
    capabilities: ['action_required', 'action_required', 'action_required', 'action_required'],
    issue: ['activity_history_not_granted', 'action_required', null],
  },
  {
    name: 'the only connection needs attention upstream: activities_blocked_upstream',
    facts: facts({ connections: [garmin({ status: 'action_required' })] }),
    capabilities: ['action_required', 'action_required', 'action_required', 'action_required'],
    issue: ['activities_blocked_upstream', 'action_required', 'manage-integrations'],
  },
  {
    name: 'a blocked connection beside a live one blocks nothing',
    facts: facts({ connections: [garmin({ status: 'action_required' }), wahoo()] }),
    capabilities: ['ready', 'ready', 'action_required', 'ready'],
    issue: ['dailies_no_source', 'action_required', 'manage-integrations'],
  },
  {
    name: 'a token without wellness:read: dailies_not_granted',
    facts: facts({ granted: ['activities:read', 'workouts:write'], connections: [garmin()] }),
    capabilities: ['ready', 'ready', 'action_required', 'ready'],
    issue: ['dailies_not_granted', 'action_required', null],
  },
  {
    name: 'only Wahoo, which keeps no daily measures: dailies_no_source',
    facts: facts({ connections: [wahoo()] }),
    capabilities: ['ready', 'ready', 'action_required', 'ready'],
    issue: ['dailies_no_source', 'action_required', 'manage-integrations'],
  },
  {
    name: 'daily values entered through the API count as a source of dailies',
    facts: facts({ connections: [wahoo()], hasEnteredDailies: true }),
    capabilities: ['ready', 'ready', 'ready', 'ready'],
    issue: null,
  },
  {
    name: 'a token without workouts:write: workouts_not_granted',
    facts: facts({ granted: ['activities:read', 'wellness:read', 'workouts:read'], connections: [garmin()] }),
    capabilities: ['ready', 'ready', 'ready', 'action_required'],
    issue: ['workouts_not_granted', 'action_required', null],
  },
  {
    name: 'only uploads and dailies entered by hand: workouts_no_source',
    facts: facts({ hasUploads: true, hasEnteredDailies: true }),
    capabilities: ['ready', 'ready', 'ready', 'action_required'],
    issue: ['workouts_no_source', 'action_required', 'manage-integrations'],
  },
  {
    name: 'a live connection still loading its history: syncing, sync_pending',
    facts: facts({ connections: [garmin({ backfillDone: false })] }),
    capabilities: ['ready', 'syncing', 'ready', 'ready'],
    issue: ['sync_pending', 'syncing', 'manage-integrations'],
  },
  {
    name: 'an action beats a sync in progress',
    facts: facts({ granted: ['activities:read', 'workouts:write'], connections: [garmin({ backfillDone: false })] }),
    capabilities: ['ready', 'syncing', 'action_required', 'ready'],
    issue: ['dailies_not_granted', 'action_required', null],
  },
  {
    name: 'everything connected and loaded: no issue',
    facts: facts({ connections: [garmin()] }),
    capabilities: ['ready', 'ready', 'ready', 'ready'],
    issue: null,
  },
  {
    name: 'issues only for declared capabilities: the default declaration ignores dailies and workouts',
    facts: facts({ declared: ['activities', 'activity_history'], granted: ['activities:read'], hasUploads: true }),
    capabilities: ['ready', 'ready', 'action_required', 'action_required'],
    issue: null,
  },
  {
    name: 'unknown declared keys are ignored',
    facts: facts({ declared: ['heart_rate_zones', 'activities'], hasUploads: true }),
    capabilities: ['ready', 'ready', 'action_required', 'action_required'],
    issue: null,
  },
  {
    name: 'an app declaring nothing has no issue, whatever the account lacks',
    facts: facts({ declared: [], granted: [] }),
    capabilities: ['action_required', 'action_required', 'action_required', 'action_required'],
    issue: null,
  },
  {
    name: 'a server with no provider configured: dailies and workouts are unavailable, never an issue',
    facts: facts({ configuredProviders: [], hasUploads: true }),
    capabilities: ['ready', 'ready', 'unavailable', 'unavailable'],
    issue: null,
  },
  {
    name: 'with no provider configured a user without uploads still needs a source',
    facts: facts({ configuredProviders: [] }),
    capabilities: ['action_required', 'action_required', 'unavailable', 'unavailable'],
    issue: ['no_source_connected', 'action_required', 'manage-integrations'],
  },
  {
    name: 'a disconnected connection is no source',
    facts: facts({ connections: [garmin({ status: 'disconnected' })] }),
    capabilities: ['action_required', 'action_required', 'action_required', 'action_required'],
    issue: ['no_source_connected', 'action_required', 'manage-integrations'],
  },
  {
    name: 'a live connection that withholds activities at the platform is no source: blocked upstream, saying to allow them there',
    facts: facts({ connections: [garmin({ withheld: ['activities', 'activity_history'] })] }),
    capabilities: ['action_required', 'action_required', 'ready', 'ready'],
    issue: ['activities_blocked_upstream', 'action_required', 'manage-integrations'],
    message: /does not share your activities/,
  },
  {
    name: 'uploads do not hide a platform that withholds activities',
    facts: facts({ hasUploads: true, connections: [garmin({ withheld: ['activities'] })] }),
    capabilities: ['action_required', 'action_required', 'ready', 'ready'],
    issue: ['activities_blocked_upstream', 'action_required', 'manage-integrations'],
  },
  {
    name: 'another platform sharing activities makes them ready',
    facts: facts({ connections: [garmin({ withheld: ['activities'] }), wahoo()] }),
    capabilities: ['ready', 'ready', 'ready', 'ready'],
    issue: null,
  },
  {
    name: 'the only daily platform withholds daily measures: dailies_no_source, saying to allow them there',
    facts: facts({ connections: [garmin({ withheld: ['dailies'] })] }),
    capabilities: ['ready', 'ready', 'action_required', 'ready'],
    issue: ['dailies_no_source', 'action_required', 'manage-integrations'],
    message: /does not share your daily measures/,
  },
  {
    name: 'activities shared without their history: the history needs the permission, activities are ready',
    facts: facts({ connections: [garmin({ withheld: ['activity_history'] })] }),
    capabilities: ['ready', 'action_required', 'ready', 'ready'],
    issue: ['activities_blocked_upstream', 'action_required', 'manage-integrations'],
    message: /does not share your activity history/,
  },
  {
    name: 'the only workout platform withholds workouts: workouts_no_source, saying to allow them there',
    facts: facts({ hasUploads: true, hasEnteredDailies: true, connections: [garmin({ withheld: ['workouts'] })] }),
    capabilities: ['ready', 'ready', 'ready', 'action_required'],
    issue: ['workouts_no_source', 'action_required', 'manage-integrations'],
    message: /does not accept workouts/,
  },
  {
    name: 'a token that cannot open the portal (delegated, personal) gets the issue without a destination',
    facts: facts({ portal: false, connections: [garmin({ backfillDone: false })] }),
    capabilities: ['ready', 'syncing', 'ready', 'ready'],
    issue: ['sync_pending', 'syncing', null],
  },
];

for (const row of ROWS) {
  test(`account status: ${row.name}`, () => {
    const status: AccountStatus = accountStatus(row.facts);
    assert.equal(CAPABILITIES.map((key) => status.capabilities[key]), row.capabilities, 'capabilities');
    assert.equal(status.issue && [status.issue.code, status.issue.status, status.issue.destination], row.issue, 'issue');
    if (status.issue) assert.ok(status.issue.message.length > 10, 'the issue carries a message to show');
    if (row.message) assert.match(status.issue?.message ?? '', row.message);
  });
}

test('the table covers every issue code of gaps.md and every capability status', () => {
  const codes = new Set(ROWS.flatMap((row) => (row.issue ? [row.issue[0]] : [])));
  assert.equal(ISSUE_CODES.filter((code) => !codes.has(code)), []);
  const statuses = new Set(ROWS.flatMap((row) => row.capabilities));
  assert.equal(['ready', 'syncing', 'action_required', 'unavailable'].filter((value) => !statuses.has(value as CapabilityStatus)), []);
});

test('every capability key is always present, with one of the four values', () => {
  const status = accountStatus(facts({ declared: [] }));
  assert.equal(Object.keys(status.capabilities).sort(), [...CAPABILITIES].sort());
});

test.run();
