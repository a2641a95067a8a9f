/** Record builders for the storage tests: complete, valid records with overridable fields. */
import type {
  ActivityRecord, ApplicationRecord, AuthorizationCodeRecord, ClientSecretRecord, DailyRecord, GrantRecord, JobRecord,
  RefreshTokenRecord, TeamMemberRecord, TeamRecord, UserRecord,
} from '../../storage/store.js';

const T0 = Date.UTC(2024, 0, 1);

export function user(id: string, over: Partial<UserRecord> = {}): UserRecord {
  return {
    id, email: `${id}@example.com`, first_name: 'Ada', last_name: null, password_hash: null, admin: false,
    managed_by: null, registered_at: T0, app_metadata: {}, ...over,
  };
}

export function application(id: string, userId: string, over: Partial<ApplicationRecord> = {}): ApplicationRecord {
  return {
    id, user_id: userId, name: `App ${id}`, description: null, image: null, url: 'https://app.example.com',
    redirect_uris: ['https://app.example.com/callback'], privacy_statement: null, brand_color: '#112233',
    webhook_endpoints: [], webhook_secret: null, purposes: { activities: 'Shows your rides on a map of the world.' },
    capabilities: ['activities'], page_slug: null, page_published: false, created_at: T0, ...over,
  };
}

export function clientSecret(id: string, applicationId: string, userId: string): ClientSecretRecord {
  return { id, application_id: applicationId, user_id: userId, label: null, secret_hash: `hash-${id}`, hint: 'tsk_ab12', created_at: T0 };
}

export function grant(id: string, userId: string, applicationId: string): GrantRecord {
  return { id, user_id: userId, application_id: applicationId, scopes: ['activities:read'], created_at: T0, updated_at: T0 };
}

export function authorizationCode(id: string, userId: string, applicationId: string, over: Partial<AuthorizationCodeRecord> = {}): AuthorizationCodeRecord {
  return {
    id, code_hash: `code-${id}`, user_id: userId, application_id: applicationId, grant_id: `grant-of-${id}`, redirect_uri: 'https://app.example.com/callback',
    scopes: ['activities:read', 'openid'], code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', nonce: null,
    auth_time: T0, expires_at: T0 + 60_000, consumed_at: null, created_at: T0, ...over,
  };
}

export function refreshToken(id: string, userId: string, applicationId: string, grantId: string): RefreshTokenRecord {
  return {
    id, token_hash: `token-${id}`, user_id: userId, application_id: applicationId, grant_id: grantId, client_secret_id: null,
    scopes: ['activities:read'], auth_time: T0, created_at: T0, last_used_at: null,
  };
}

export function team(id: string, userId: string): TeamRecord {
  return { id, user_id: userId, name: `Team ${id}`, description: '', url: '', image: '', privacy_statement: '', created_at: T0 };
}

export function teamMember(id: string, teamId: string, userId: string): TeamMemberRecord {
  return { id, team_id: teamId, user_id: userId, role: 'member', created_at: T0 };
}

export function activity(id: string, userId: string, over: Partial<ActivityRecord> = {}): ActivityRecord {
  return {
    id, user_id: userId, source_id: `src-${id}`, source_index: 0, sport: 'cycling.road', start: T0, end: T0 + 3_600_000,
    offset: 60, local_date: '2024-01-01', duration_s: 3600, metrics: ['power', 'heart_rate'], tags: ['race'], devices: [],
    distance: 40_000.5, summary: { power: { mean: 231.5, max: 812, min: 0, sum: null } },
    laps: [{ start: T0, end: T0 + 600_000, offset: 60, blocks: { heart_rate: { mean: 151, max: null } } }],
    app_metadata: { app1: { note: 'hello', nested: { list: [1, 'two', null, true] } } }, series_key: `series/${id}`,
    samples: 3600, created_at: T0, updated_at: T0, ...over,
  };
}

export function daily(id: string, userId: string, over: Partial<DailyRecord> = {}): DailyRecord {
  return { id, user_id: userId, measure: 'hrv', date: '2024-01-01', value: 61.5, source: 'manual', created_at: T0, updated_at: T0, ...over };
}

export function job(id: string, over: Partial<JobRecord> = {}): JobRecord {
  return {
    id, user_id: null, kind: 'ingest', key: null, payload: { source_id: 's1' }, status: 'queued', attempts: 0, run_after: T0,
    lease_owner: null, lease_until: null, progress: null, error: null, created_at: T0, updated_at: T0, ...over,
  };
}

export { T0 };
