// The server's protocol 2 (docs/server.md): after the whole `state` a join brings, each
// `update` holds only what changed since the connection's last version. applyUpdate brings the
// page's copy of the state up to date, so that the tables draw from a whole state as before.

/** How many history records the page keeps (the server's `state` holds the latest 20). */
export const HISTORY_KEPT = 20;

/** The protocol version the page speaks (named in its join and watch). */
export const PROTOCOL = 2;

/**
 * The state after `update`, from the state at `update.since` (null when they do not match:
 * the page then asks for the whole state again).
 */
export function applyUpdate(state, update) {
  if (!state || update.since !== state.version) return null;
  const view = { ...(state.view || {}) };
  for (const name of update.removed || []) delete view[name];
  Object.assign(view, update.view || {});
  for (const [name, items] of Object.entries(update.appended || {})) {
    view[name] = [...(Array.isArray(view[name]) ? view[name] : []), ...items];
  }
  const records = (update.records || []).map(({ step, ...record }) => record);
  return {
    ...state,
    type: "state",
    version: update.version,
    current_player: update.current_player,
    terminal: update.terminal,
    view,
    legal_actions: update.legal_actions || [],
    scores: update.scores || state.scores,
    history: [...(state.history || []), ...records].slice(-HISTORY_KEPT),
  };
}
