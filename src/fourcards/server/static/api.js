// The server's HTTP API (docs/server.md): games, tables, seats.

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

export function listTables() {
  return call("GET", "api/tables");
}

export function getTable(id) {
  return call("GET", `api/tables/${encodeURIComponent(id)}`);
}

/** Create a table; seats: [{kind: "human"} | {kind: "bot", bot: "greedy"}]. */
export function createTable(game, rules, seats) {
  return call("POST", "api/tables", { game, rules, seats });
}

/** Claim a free human seat: {table, seat, token}. */
export function claimSeat(table, seat) {
  return call("POST", `api/tables/${encodeURIComponent(table)}/seats/${seat}`, {});
}
