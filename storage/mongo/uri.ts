/**
 * What a MongoDB connection string says, read without loading the driver: the database it names and
 * its hosts. `hostsOf` is what may be logged: it never returns the credentials, the path or the
 * options (an option such as `authMechanismProperties` can carry a secret too).
 * Kept honest by test/storage/config.test.ts.
 */

/** Used when neither the URI nor MONGODB_DATABASE names a database. */
export const DEFAULT_DATABASE = 'threshold';

/** The database a connection string names in its path (`mongodb://host/<db>?…`), or null. */
export function databaseNamedBy(uri: string): string | null {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]*)/.exec(uri);
  const name = match?.[1] ? decodeURIComponent(match[1]) : '';
  return name === '' ? null : name;
}

/** The database a store on `uri` uses: the one the URI names, else `configured`, else 'threshold'. */
export function databaseFor(uri: string, configured?: string): string {
  return databaseNamedBy(uri) ?? configured ?? DEFAULT_DATABASE;
}

/**
 * The scheme and hosts only: `mongodb://u:p@h1:27017,h2/db?replicaSet=rs0` → `mongodb://h1:27017,h2`.
 * Everything up to the last `@` before the options is dropped, so even a password with an unescaped
 * `/` or `@` never comes back.
 */
export function hostsOf(uri: string): string {
  const scheme = /^[a-z+]+:\/\//i.exec(uri)?.[0] ?? '';
  let rest = uri.slice(scheme.length).split(/[?#]/, 1)[0]!;
  rest = rest.slice(rest.lastIndexOf('@') + 1);
  return `${scheme}${rest.split('/', 1)[0]!}`;
}
