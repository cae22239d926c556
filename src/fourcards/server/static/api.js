// The server's HTTP API (docs/server.md): games, tables, seats, replays.

export class ApiError extends Error {
  constructor(status, code, reason) {
    super(`${status} ${code}: ${reason}`);
    Object.assign(this, { status, code, reason });
  }
}

/** The server's address: the page's folder, so that the server may be mounted under a path. */
export const BASE = new URL(".", location.href);

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(new URL(path, BASE), {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, "network", String(error));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.code || "http", error.reason || response.statusText);
  }
  return data;
}

/** Every game: name, title, players [min, max], rules [{name, type, default, choices}], bots. */
export function listGames() {
  return call("GET", "api/games");
}

/** One page of the public tables: {tables, next, total}; ``newest`` first when asked, ``after`` a
 *  page's ``next`` for the page after it. */
export function listTables({ limit = 50, newest = false, after = null } = {}) {
  const query = new URLSearchParams({ limit: String(limit), order: newest ? "newest" : "oldest" });
  if (after) query.set("after", after);
  return call("GET", `api/tables?${query}`);
}

/** The query of a private table's invitation (none for a public table). */
function inviteQuery(invite) {
  return invite ? `?invite=${encodeURIComponent(invite)}` : "";
}

/** One table's summary (a private table needs its invitation). */
export function getTable(id, invite = null) {
  return call("GET", `api/tables/${encodeURIComponent(id)}${inviteQuery(invite)}`);
}

/** A finished match: its seats, every public record in order, winners and scores. */
export function getReplay(id, invite = null) {
  return call("GET", `api/tables/${encodeURIComponent(id)}/replay${inviteQuery(invite)}`);
}

/** The public board of a finished match after ``step`` actions: {step, view, current_player, scores}. */
export function getReplayBoard(id, step, invite = null) {
  return call("GET", `api/tables/${encodeURIComponent(id)}/replay/${Number(step)}${inviteQuery(invite)}`);
}

/** Create a table; seats: [{kind: "human"} | {kind: "bot", bot: "greedy"}]. A private table's
 *  answer holds its invitation (``invite``), shown this once. */
export function createTable(game, rules, seats, isPrivate = false) {
  return call("POST", "api/tables", isPrivate ? { game, rules, seats, private: true } : { game, rules, seats });
}

/** Claim a free human seat (a private table's needs its invitation): {table, seat, token}. */
export function claimSeat(table, seat, invite = null) {
  return call("POST", `api/tables/${encodeURIComponent(table)}/seats/${seat}`, invite ? { invite } : {});
}
