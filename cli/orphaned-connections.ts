/**
 * Connections node:cluster leaves hanging when a gateway process dies (issue 27, item 4).
 *
 * Under round-robin the primary accepts each connection and sends it to a gateway process, keeping its
 * own copy open until that process acknowledges it (lib/internal/cluster/round_robin_handle.js,
 * `handoff`). A process killed between the two never acknowledges, and nothing else closes that copy:
 * the client has connected and sent its request, and waits for ever (seen once or twice per SIGKILL
 * under load). After a gateway process exits, the primary closes the accepted connections it still holds
 * a while later that it already held when the process exited: a live process acknowledges within
 * milliseconds, so what is left is the dead one's. Their clients see the connection end (an error at
 * once, which they may retry), never a hang.
 *
 * The primary's accepted-but-not-handed-over connections are the only libuv TCP handles it holds that no
 * net.Socket or net.Server owns (process._getActiveHandles reports those as raw `TCP` objects).
 * Kept honest by test/gateway/start-answers.test.ts (SIGKILL of a gateway process under load).
 */

/** How long a connection held when a gateway process exited may stay held, milliseconds. */
const ORPHANED_AFTER_MS = 1000;

interface RawHandle {
  close(): void;
}

/** Accepted connections the primary holds (in a round-robin handoff or waiting for one). */
function heldConnections(): Set<RawHandle> {
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  return new Set(handles.filter((handle): handle is RawHandle => (handle as object | null)?.constructor?.name === 'TCP'));
}

/** Call when a gateway process has exited: its unacknowledged connections are closed ORPHANED_AFTER_MS later. */
export function closeOrphanedConnections(): void {
  const held = heldConnections();
  if (held.size === 0) return;
  setTimeout(() => {
    for (const handle of heldConnections()) if (held.has(handle)) handle.close();
  }, ORPHANED_AFTER_MS).unref();
}
