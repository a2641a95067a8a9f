/**
 * The callers a record endpoint's tests need (markers, max efforts, …): one user with a personal token
 * carrying `activities:read` and `activities:write`, a read-only personal token and an app token for the
 * same user, and a token of another user.
 */
import type { TestStack } from './stack.js';
import { createApplication } from '../../gateway/services/accounts.js';

export interface RecordCallers {
  userId: string;
  token: string;
  readOnly: string;
  appId: string;
  appToken: string;
  otherToken: string;
}

const READ_WRITE = ['activities:read', 'activities:write'];

export async function recordCallers(stack: TestStack, appName: string): Promise<RecordCallers> {
  const owner = await stack.userWithToken([]);
  const appId = (await createApplication(stack.store, owner.userId, { name: appName })).id;
  const { userId, token } = await stack.userWithToken(READ_WRITE);
  return {
    userId,
    token,
    readOnly: (await stack.userWithToken(['activities:read'], { userId })).token,
    appId,
    appToken: (await stack.userWithToken(READ_WRITE, { appId, userId })).token,
    otherToken: (await stack.userWithToken(READ_WRITE)).token,
  };
}
