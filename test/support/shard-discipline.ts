/**
 * Reads the MongoDB driver's `commandStarted` events (command monitoring) and finds every command a sharded
 * cluster would have to send to every shard or refuse: a command against a collection schema.ts declares
 * sharded whose filter does not name the user by equality, an insert or upsert whose document lacks a
 * shard-key field, and a multi-document transaction (one `lsid` + `txnNumber`) whose commands on sharded
 * collections name more than one user. test/storage/shard-discipline.test.ts uses it.
 */
import type { CommandStartedEvent, Document } from 'mongodb';
import { COLLECTION_NAMES, shardKeyOf } from '../../storage/schema.js';
import type { CollectionName } from '../../storage/store.js';

const SHARD_KEYS = new Map<string, readonly string[]>(
  COLLECTION_NAMES.flatMap((name: CollectionName) => {
    const key = shardKeyOf(name);
    return key ? [[name, key] as const] : [];
  }),
);

export interface Violation {
  command: string;
  collection: string;
  problem: string;
}

/** The conditions a filter ANDs together: its own fields and, recursively, each member of its `$and`. */
function conjuncts(filter: Document | undefined): Document[] {
  if (filter === undefined || filter === null) return [];
  const members = Array.isArray(filter['$and']) ? (filter['$and'] as Document[]).flatMap(conjuncts) : [];
  return [filter, ...members];
}

/** The user a filter names by equality (as mongos targets a shard: the field, or a member of `$and`), or null. */
function equalityUser(filter: Document | undefined): string | null {
  for (const part of conjuncts(filter)) {
    const condition: unknown = part['user_id'];
    if (typeof condition === 'string') return condition;
    if (condition !== null && typeof condition === 'object' && typeof (condition as Document)['$eq'] === 'string') return (condition as Document)['$eq'] as string;
  }
  return null;
}

/** Every user a filter or document names (equality or an `$in` list), for the transaction check. */
function usersNamed(value: Document | undefined): string[] {
  const users: string[] = [];
  for (const part of conjuncts(value)) {
    const condition: unknown = part['user_id'];
    if (typeof condition === 'string') users.push(condition);
    else if (condition !== null && typeof condition === 'object') {
      const eq = (condition as Document)['$eq'];
      if (typeof eq === 'string') users.push(eq);
      const list = (condition as Document)['$in'];
      if (Array.isArray(list)) users.push(...list.filter((user): user is string => typeof user === 'string'));
    }
  }
  return users;
}

/**
 * What one command reads or writes: its filters, its inserted documents, and the filters of its upserts
 * (mongos routes an upsert by its filter, which must hold the whole shard key by equality).
 */
function partsOf(name: string, command: Document): { filters: Document[]; docs: Document[]; upserts: Document[] } | null {
  switch (name) {
    case 'find': return { filters: [command['filter'] ?? {}], docs: [], upserts: [] };
    case 'count': case 'distinct': return { filters: [command['query'] ?? {}], docs: [], upserts: [] };
    case 'aggregate': {
      const first = (command['pipeline'] as Document[] | undefined)?.[0];
      return { filters: [first?.['$match'] ?? {}], docs: [], upserts: [] };
    }
    case 'findAndModify': return { filters: [command['query'] ?? {}], docs: [], upserts: command['upsert'] ? [command['query'] ?? {}] : [] };
    case 'update': {
      const updates = command['updates'] as Document[];
      return { filters: updates.map((u) => u['q'] ?? {}), docs: [], upserts: updates.filter((u) => u['upsert']).map((u) => u['q'] ?? {}) };
    }
    case 'delete': return { filters: (command['deletes'] as Document[]).map((d) => d['q'] ?? {}), docs: [], upserts: [] };
    case 'insert': return { filters: [], docs: command['documents'] as Document[], upserts: [] };
    default: return null;
  }
}

export class ShardDiscipline {
  readonly violations: Violation[] = [];
  /** Commands seen against sharded collections: a check that saw none proves nothing. */
  checked = 0;
  private readonly transactions = new Map<string, { users: Set<string>; commands: string[] }>();

  /** Pass as `openMongoStore({ onCommand })`. */
  readonly listen = (event: CommandStartedEvent): void => {
    const name = event.commandName;
    const command = event.command;
    const collection = command[name];
    const parts = typeof collection === 'string' ? partsOf(name, command) : null;
    if (parts === null) return;
    const key = SHARD_KEYS.get(collection);
    if (key) {
      this.checked++;
      for (const filter of parts.filters) {
        if (equalityUser(filter) === null) this.flag(name, collection, `filter names no user: ${JSON.stringify(filter)}`);
      }
      for (const doc of parts.docs) {
        const missing = key.filter((field) => doc[field] === undefined || doc[field] === null || (field === 'user_id' && typeof doc[field] !== 'string'));
        if (missing.length > 0) this.flag(name, collection, `inserted document lacks ${missing.join(', ')}`);
      }
      for (const filter of parts.upserts) {
        const named = (field: string) => conjuncts(filter).some((part) => part[field] !== undefined && part[field] !== null && (typeof part[field] !== 'object' || '$eq' in part[field]));
        const missing = key.filter((field) => !named(field));
        if (missing.length > 0) this.flag(name, collection, `upsert filter lacks shard-key field ${missing.join(', ')}: ${JSON.stringify(filter)}`);
      }
    }
    if (command['txnNumber'] !== undefined && command['lsid'] !== undefined) {
      const id = `${Buffer.from((command['lsid'] as { id: { buffer: Uint8Array } }).id.buffer).toString('hex')}:${String(command['txnNumber'])}`;
      const transaction = this.transactions.get(id) ?? { users: new Set<string>(), commands: [] };
      this.transactions.set(id, transaction);
      // Users count where their data is sharded: unsharded collections all live on the primary shard, so a
      // transaction that names several users only there (a deletion removing users and their apps) stays on it.
      if (key) for (const part of [...parts.filters, ...parts.docs]) for (const user of usersNamed(part)) transaction.users.add(user);
      transaction.commands.push(`${name} ${collection}`);
    }
  };

  private flag(command: string, collection: string, problem: string): void {
    this.violations.push({ command, collection, problem });
  }

  /** Transactions seen that named at least one user: a check that saw none proves nothing about transactions. */
  get transactionsSeen(): number {
    return [...this.transactions.values()].filter((transaction) => transaction.users.size > 0).length;
  }

  /** Every violation, transactions spanning users included, one per line (empty when there is none). */
  report(): string[] {
    const lines = this.violations.map((v) => `${v.command} ${v.collection}: ${v.problem}`);
    for (const { users, commands } of this.transactions.values()) {
      if (users.size > 1) lines.push(`a transaction spans users ${[...users].join(', ')}: ${commands.join('; ')}`);
    }
    return lines;
  }
}
