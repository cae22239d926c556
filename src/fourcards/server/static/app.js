// The fourcards page: a lobby (create a table, join by link, watch, replay) and the
// table of every game, over the server's HTTP API and one WebSocket per seat (or
// per spectator).

import { h, clear, append } from "./dom.js";
import { t, has, num, setLanguage, preferredLanguage, language, LANGUAGES } from "./i18n.js";
import { loadCardData, useDeck } from "./cards.js";
import { rendererFor, generic, commonHistory } from "./games.js";
import * as api from "./api.js";
import { applyUpdate, PROTOCOL } from "./updates.js";

const main = () => document.getElementById("main");
const LOBBY_TABLES = 60; // the newest tables the lobby lists
let connection = null; // the open table's Connection, if any
let games = []; // the server's list of games
let gamesLoading = null;

/** The server's list of games (loaded once). */
async function loadGames() {
  if (games.length) return games;
  if (!gamesLoading) {
    gamesLoading = api.listGames().then((listed) => {
      games = Array.isArray(listed) ? listed : listed.games;
      return games;
    }).finally(() => { gamesLoading = null; });
  }
  return gamesLoading;
}

function gameEntry(name) {
  return games.find((g) => g.name === name) || { name, script: null };
}

/** A message from the catalog when it has one (data-driven keys), else the data's own words. */
function label(key, fallback, params = {}) {
  return has(key) ? t(key, params) : fallback;
}

// -- seat tokens, kept so a reload returns to the same seat ---------------------------

const SEATS = "fourcards.seats";

function storedSeats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS) || "{}");
  } catch {
    return {};
  }
}

export function storeSeat(table, seat, token, invite = null) {
  const seats = storedSeats();
  // A private table's invitation is kept with the seat, so its link can be shared again.
  seats[table] = invite ? { seat, token, invite } : { seat, token };
  localStorage.setItem(SEATS, JSON.stringify(seats));
}

function seatOf(table) {
  return storedSeats()[table] || null;
}

function forgetSeat(table) {
  const seats = storedSeats();
  delete seats[table];
  localStorage.setItem(SEATS, JSON.stringify(seats));
}

// -- routing ---------------------------------------------------------------------

/** The page's place: `#/<kind>/<table>`, with a private table's `?invite=...` (or `&invite=`). */
function parseHash(hash) {
  const match = /^#\/(table|join|watch|replay)\/([\w-]+)(?:[?&](.*))?$/.exec(hash);
  if (!match) return null;
  return { kind: match[1], table: match[2], invite: new URLSearchParams(match[3] || "").get("invite") };
}

/** The fragment of a page of a table (with the invitation of a private one). */
function pageLink(kind, table, invite = null) {
  return `#/${kind}/${table}${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`;
}

function route() {
  if (connection) {
    connection.close();
    connection = null;
  }
  const where = parseHash(location.hash);
  if (!where) showLobby();
  else if (where.kind === "watch") showTable(where.table, { watch: true, invite: where.invite });
  else if (where.kind === "replay") showReplay(where.table, where.invite);
  else if (seatOf(where.table)) showTable(where.table);
  else showJoin(where.table, where.invite);
}

function gameTitle(name) {
  return label(`game.${name}`, gameEntry(name).title || name);
}

function scoreText(name, score) {
  return label(`score.${name}`, t("score.any", { score: num(score), label: gameEntry(name).score_label || "" }), { score: num(score) });
}

function errorText(error) {
  if (error && error.code) return has(`error.${error.code}`) ? t(`error.${error.code}`) : t("error.http");
  return t("error.network");
}

function botName(kind) {
  return label(`bot.${kind}`, kind);
}

function banner(text, kind = "error") {
  return h("p", { class: `banner ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

// -- header: title and language ------------------------------------------------------

function renderHeader() {
  const header = clear(document.getElementById("header"));
  const select = h("select", { id: "language", "aria-label": t("language.choose"),
    onchange: async (event) => {
      await setLanguage(event.target.value, true);
      renderHeader();
      rerender();
    } }, LANGUAGES.map((lang) => h("option", { value: lang, selected: lang === language() }, t(`language.${lang}`))));
  header.append(
    h("a", { href: "#/", class: "brand" }, t("app.title")),
    h("label", { class: "language" }, h("span", { class: "visually-hidden" }, t("language.choose")), select));
  document.title = t("app.title");
}

let rerender = () => route();

// -- lobby -----------------------------------------------------------------------

/** The rules a form can set: ints, booleans and fixed choices (not decks). */
function formRules(game) {
  const rules = {};
  for (const rule of game.rules || []) {
    if (rule.type === "object") continue;
    rules[rule.name] = rule;
  }
  return rules;
}

function ruleInput(game, name, spec, values) {
  const id = `rule-${name}`;
  const value = values[name] ?? spec.default;
  const text = h("label", { for: id }, label(`rule.${name}`, name.replaceAll("_", " ")));
  let input;
  if (spec.choices) {
    input = h("select", { id, name }, spec.choices.map((c) => h("option", { value: String(c), selected: String(c) === String(value) },
      label(`rule.${name}.${c}`, String(c)))));
  } else if (spec.type === "bool") {
    input = h("input", { id, name, type: "checkbox", checked: Boolean(value) });
    return h("div", { class: "field check" }, input, text);
  } else if (spec.type === "str") {
    input = h("input", { id, name, type: "text", value });
  } else {
    const float = spec.type === "float";
    input = h("input", { id, name, type: "number", value, min: spec.low ?? (float ? 0 : undefined), max: spec.high,
      step: float ? "any" : 1, inputmode: float ? "decimal" : "numeric" });
  }
  return h("div", { class: "field" }, text, input);
}

function readRules(form, spec) {
  const rules = {};
  for (const [name, field] of Object.entries(spec)) {
    const input = form.querySelector(`[name="${name}"]`);
    if (!input) continue;
    if (field.type === "bool") rules[name] = input.checked;
    else if (field.type === "int" || field.type === "float") rules[name] = Number(input.value);
    else rules[name] = input.value;
    if (rules[name] === field.default) delete rules[name];
  }
  return rules;
}

async function showLobby() {
  const root = clear(main());
  root.append(h("p", { class: "loading" }, t("lobby.loading")));
  let tables = [];
  try {
    await loadGames();
    const listed = await api.listTables({ limit: LOBBY_TABLES, newest: true });
    tables = Array.isArray(listed) ? listed : listed.tables;
  } catch (error) {
    clear(root).append(banner(errorText(error)));
    return;
  }
  clear(root);
  const state = { game: games[0].name, values: {}, private: false };
  const createBox = h("section", { class: "panel", id: "create" });
  const draw = () => {
    const game = games.find((g) => g.name === state.game);
    const spec = formRules(game);
    if (spec.players && game.players) Object.assign(spec.players, { min: game.players[0], max: game.players[1] });
    const players = Number(state.values.players ?? spec.players?.default ?? game.players?.[0] ?? 2);
    const form = h("form", { id: "create-form", onsubmit: async (event) => {
      event.preventDefault();
      const rules = readRules(form, spec);
      if (spec.players) rules.players = players;
      const seats = [{ kind: "human" }];
      for (let s = 1; s < players; s++) {
        const choice = form.querySelector(`[name="seat-${s}"]`).value;
        seats.push(choice === "human" ? { kind: "human" } : { kind: "bot", bot: choice });
      }
      submit.disabled = true;
      try {
        const created = await api.createTable(game.name, rules, seats, state.private);
        const invite = created.invite || null; // a private table's: answered this once
        const claimed = await api.claimSeat(created.id, 0, invite);
        storeSeat(created.id, claimed.seat, claimed.token, invite);
        location.hash = `#/table/${created.id}`;
      } catch (error) {
        submit.disabled = false;
        form.append(banner(errorText(error)));
      }
    } });
    form.addEventListener("change", (event) => {
      if (event.target.name === "private") {
        state.private = event.target.checked;
      } else if (event.target.name === "game") {
        state.game = event.target.value;
        state.values = {};
        draw();
      } else if (event.target.name === "players") {
        Object.assign(state.values, readRules(form, spec), { players: Number(event.target.value) });
        draw();
      } else if (event.target.name === "mode") {
        // Solitaire is one player; taking turns, two or more.
        const players = Number(form.querySelector('[name="players"]')?.value || 1);
        const wanted = event.target.value === "solitaire" ? 1 : Math.max(2, players);
        Object.assign(state.values, readRules(form, spec), { mode: event.target.value, players: wanted });
        draw();
      }
    });
    const seatRows = [];
    for (let s = 1; s < players; s++) {
      seatRows.push(h("div", { class: "field" },
        h("label", { for: `seat-${s}` }, t("seat.name", { n: num(s + 1) })),
        h("select", { id: `seat-${s}`, name: `seat-${s}` },
          game.bots.map((bot) => h("option", { value: bot, selected: bot === (game.best_bot || game.bots[game.bots.length - 1]) }, t("lobby.bot", { kind: botName(bot) }))),
          h("option", { value: "human" }, t("lobby.human")))));
    }
    const submit = h("button", { type: "submit", class: "primary" }, t("lobby.create"));
    form.append(
      h("div", { class: "field" }, h("label", { for: "game" }, t("lobby.game")),
        h("select", { id: "game", name: "game" }, games.map((g) => h("option", { value: g.name, selected: g.name === state.game }, gameTitle(g.name))))),
      has(`game.${game.name}.about`) ? h("p", { class: "note" }, t(`game.${game.name}.about`)) : null,
      h("fieldset", {}, h("legend", {}, t("lobby.rules")), Object.entries(spec).map(([name, rule]) => ruleInput(game, name, rule, state.values))),
      h("fieldset", {}, h("legend", {}, t("lobby.seats")),
        h("p", { class: "note" }, t("lobby.you", { n: num(1) })), seatRows),
      h("div", { class: "field check" },
        h("input", { id: "private", name: "private", type: "checkbox", checked: state.private, "aria-describedby": "private-note" }),
        h("label", { for: "private" }, t("lobby.private"))),
      h("p", { class: "note", id: "private-note" }, t("lobby.private.note")),
      submit);
    clear(createBox).append(h("h2", {}, t("lobby.new")), form);
  };
  draw();
  // Every public table, newest first: join a free seat (or return to yours), watch any, replay a finished one.
  const listed = [...tables].sort((a, b) => (b.created ?? 0) - (a.created ?? 0)).slice(0, LOBBY_TABLES);
  const tableList = h("section", { class: "panel", id: "tables" }, h("h2", {}, t("lobby.tables")),
    listed.length
      ? h("ul", { class: "tables" }, listed.map((table) => {
        const free = table.seats.filter((s) => s.kind === "human" && !s.taken).length;
        const mine = Boolean(seatOf(table.id));
        const status = table.terminal ? t("lobby.table.finished")
          : free ? t("lobby.table.seats", { free: num(free), total: num(table.seats.length) }) : t("lobby.table.playing");
        return h("li", { dataset: { table: table.id } },
          h("span", {}, gameTitle(table.game), " · ", status),
          h("span", { class: "links" },
            !table.terminal && (mine || free)
              ? h("a", { href: pageLink("join", table.id), class: "button" }, mine ? t("lobby.return") : t("lobby.join")) : null,
            h("a", { href: pageLink("watch", table.id), class: "button watch" }, t("lobby.watch")),
            table.terminal ? h("a", { href: pageLink("replay", table.id), class: "button replay" }, t("lobby.replay")) : null));
      }))
      : h("p", { class: "empty" }, t("lobby.tables.none")));
  root.append(createBox, tableList);
  rerender = () => showLobby();
}

// -- joining by link -------------------------------------------------------------

async function showJoin(tableId, invite = null) {
  const root = clear(main());
  rerender = () => showJoin(tableId, invite);
  let info;
  try {
    info = await api.getTable(tableId, invite);
  } catch (error) {
    root.append(banner(errorText(error)), h("a", { href: "#/", class: "button" }, t("lobby.back")));
    return;
  }
  const free = info.seats.map((s, seat) => ({ ...s, seat })).filter((s) => s.kind === "human" && !s.taken);
  root.append(h("section", { class: "panel" },
    h("h2", {}, t("join.title", { game: gameTitle(info.game) })),
    info.private ? h("p", { class: "note" }, t("join.private")) : null,
    free.length && !info.terminal
      ? h("div", { class: "actions" }, free.map((s) => h("button", { type: "button", class: "primary", onclick: async (event) => {
        event.target.disabled = true;
        try {
          const claimed = await api.claimSeat(tableId, s.seat, invite);
          storeSeat(tableId, claimed.seat, claimed.token, invite);
          location.hash = `#/table/${tableId}`;
          if (location.hash === `#/table/${tableId}`) route();
        } catch (error) {
          root.append(banner(errorText(error)));
        }
      } }, t("join.seat", { n: num(s.seat + 1) }))))
      : h("p", { class: "empty" }, info.terminal ? t("join.over") : t("join.full")),
    h("div", { class: "links" },
      h("a", { href: pageLink("watch", tableId, invite), class: "button", id: "watch-link" }, t("lobby.watch")),
      info.terminal ? h("a", { href: pageLink("replay", tableId, invite), class: "button", id: "replay-link" }, t("lobby.replay")) : null,
      h("a", { href: "#/", class: "button" }, t("lobby.back")))));
}

// -- the table ---------------------------------------------------------------------

class Connection {
  /** hello: the first message of every connection (`join` with the seat's token, or `watch`). */
  constructor(hello, onMessage, onStatus) {
    Object.assign(this, { hello, onMessage, onStatus });
    this.closed = false;
    this.retry = 0;
    this.counter = 0;
    this.open();
  }

  open() {
    const address = new URL("ws", api.BASE);
    address.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(address);
    this.socket = socket;
    this.onStatus("connecting");
    socket.addEventListener("open", () => {
      this.retry = 0;
      socket.send(JSON.stringify(this.hello));
      this.onStatus("connected");
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(message);
    });
    socket.addEventListener("close", () => {
      if (this.closed) return;
      // Reconnect with backoff: 0.5 s, 1 s, 2 s, 4 s, then every 5 s.
      const delay = Math.min(5000, 500 * 2 ** this.retry++);
      this.onStatus("reconnecting");
      this.timer = setTimeout(() => this.open(), delay);
    });
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  nextId() {
    return `c${Date.now().toString(36)}${(this.counter++).toString(36)}`;
  }

  act(version, action) {
    return this.send({ type: "act", id: this.nextId(), version, action });
  }

  /** Start again from the whole state: the connection is opened again (its join brings the state). */
  resync() {
    if (this.socket) this.socket.close();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close();
  }
}

/** A table: the seat this browser holds (its stored token), or, with ``watch``, as a spectator. */
function showTable(tableId, { watch = false, invite = null } = {}) {
  const stored = watch ? null : seatOf(tableId);
  const seat = stored ? stored.seat : null;
  const hello = watch ? { type: "watch", table: tableId, protocol: PROTOCOL, ...(invite ? { invite } : {}) }
    : { type: "join", table: tableId, token: stored.token, protocol: PROTOCOL };
  const view = { table: tableId, seat, watching: watch, invite: watch ? invite : stored.invite || null,
    message: null, state: null, welcome: null, hint: null, status: "connecting",
    error: null, selected: new Set(), sent: false, end: null };
  const root = clear(main());
  const board = h("div", { id: "table", class: "table" });
  root.append(board);
  const draw = () => {
    // The game's table module, once the table names its game (drawn when it has loaded).
    const name = (view.state && view.state.game) || (view.welcome && view.welcome.game);
    if (name && view.gameName !== name) {
      view.gameName = name;
      view.renderer = null;
      loadGames().catch(() => []).then(() => rendererFor(gameEntry(name))).then((renderer) => {
        if (view.gameName !== name) return;
        view.renderer = renderer;
        drawTable(board, view);
      });
    }
    drawTable(board, view);
  };
  rerender = draw;
  const showState = (state) => {
    view.state = state;
    // For tests and tools: the state on screen, its version and the seat.
    window.fourcardsState = state;
    window.fourcardsVersion = state.version;
    window.fourcardsSeat = view.seat;
    view.sent = false;
    view.hint = null;
    view.error = null;
    view.selected.clear();
  };
  connection = new Connection(hello, (message) => {
    switch (message.type) {
      case "welcome":
        view.welcome = message;
        useDeck(message.deck);
        if (message.seat !== undefined) view.seat = message.seat;
        break;
      case "state":
        if (view.state && message.version !== undefined && view.state.version !== undefined && message.version < view.state.version) return;
        showState(message);
        break;
      case "update": {
        // What changed since the last version (the server's protocol 2): applied to the state on screen.
        const state = applyUpdate(view.state, message);
        if (!state) {
          connection.resync(); // out of step: the whole state again
          return;
        }
        showState(state);
        break;
      }
      case "ack":
        break;
      case "hint":
        if (view.state && message.version !== undefined && message.version !== view.state.version) return;
        view.hint = message;
        break;
      case "end":
        view.end = message;
        break;
      case "error":
        view.sent = false;
        if (message.code === "bad_token" || message.code === "unknown_table") {
          // The stored seat is no good any more (the table is gone): forget it.
          view.fatal = message;
          connection.closed = true;
          if (!view.watching) forgetSeat(tableId);
        }
        if (message.code === "too_many_spectators" || message.code === "table_expired") {
          // No use trying again: too many spectators, or the table was closed for good.
          view.fatal = message;
          connection.closed = true;
          if (message.code === "table_expired" && !view.watching) forgetSeat(tableId);
        }
        if (message.code !== "replaced") view.error = message;
        else {
          view.fatal = message;
          connection.closed = true;
        }
        break;
      default:
        return;
    }
    draw();
  }, (status) => {
    view.status = status;
    draw();
  });
  draw();
}

/** The name of a seat on the page: you, a bot, a named person, or its number. */
function seatNamer(seats, mine) {
  return (seat) => {
    if (mine !== null && mine !== undefined && seat === mine) return t("seat.you");
    const info = seats[seat];
    if (info && info.kind === "bot") return t("seat.bot", { n: num(seat + 1), kind: botName(info.bot) });
    if (info && info.name) return t("seat.named", { n: num(seat + 1), name: info.name });
    return t("seat.name", { n: num(seat + 1) });
  };
}

function observationOf(state) {
  return state.view || {};
}

function drawTable(board, view) {
  // Keep the keyboard focus across a redraw: on the same control, or on the first move.
  const active = document.activeElement;
  const focus = active && board.contains(active) && active !== board
    ? (active.id ? `#${active.id}` : active.classList.contains("action") ? "#actions button.action"
      : active.dataset.group ? `[data-group="${CSS.escape(active.dataset.group)}"]`
        : active.dataset.pick ? `[data-pick="${CSS.escape(active.dataset.pick)}"]` : null)
    : null;
  render(board, view);
  if (focus) {
    const target = board.querySelector(`${focus}:not([disabled])`) || board.querySelector("#actions button.action:not([disabled])")
      || board.querySelector("#hint");
    if (target) target.focus();
  }
}

function render(board, view) {
  clear(board);
  const state = view.state;
  const welcome = view.welcome || {};
  const gameName = (state && state.game) || welcome.game;
  if (view.fatal) {
    board.append(banner(errorText(view.fatal)), h("a", { href: "#/", class: "button" }, t("lobby.back")));
    return;
  }
  // A seat shares the join link, a spectator the link to watch (each with a private table's invitation).
  const link = new URL(pageLink(view.watching ? "watch" : "join", view.table, view.invite), api.BASE).href;
  board.append(h("header", { class: "table-head" },
    h("h2", {}, gameName ? gameTitle(gameName) : t("table.loading")),
    view.watching ? h("span", { class: "status status-watching", id: "watching-badge" }, t("watch.badge")) : null,
    h("span", { class: `status status-${view.status}`, role: "status" }, t(`status.${view.status}`)),
    h("button", { type: "button", class: "link", id: "copy-link", onclick: async (event) => {
      try {
        await navigator.clipboard.writeText(link);
        event.target.textContent = t("table.invite.copied");
      } catch {
        event.target.textContent = link;
      }
    } }, view.watching ? t("watch.copy") : t("table.invite"))));
  if (view.watching) {
    board.append(h("p", { class: "banner info watching-note", id: "watching" }, t("watch.note")));
  } else if (view.invite) {
    // A private table: the invitation link is the only way in, so it is shown to be copied.
    board.append(h("section", { class: "panel invite-box", id: "invite" },
      h("label", { for: "invite-link" }, t("table.private")),
      h("input", { id: "invite-link", type: "text", readonly: true, value: link, onfocus: (event) => event.target.select() })));
  }
  const game = view.renderer;
  if (!state || !game) {
    board.append(h("p", { class: "loading" }, t("table.loading")));
    return;
  }
  const obs = observationOf(state);
  const seats = welcome.seats || [];
  const players = seats.length || (state.scores ? state.scores.length : 0);
  const legal = state.legal_actions || [];
  // The cards some legal move uses: only these select (and narrow the moves).
  const usable = new Set(legal.flatMap((a) => game.cardsOf(a)));
  const ctx = {
    game: gameName,
    seat: view.seat,
    players,
    legal,
    seatName: seatNamer(seats, view.seat),
    selectable(cardEl, name) {
      if (!usable.has(name)) return cardEl;
      const pressed = view.selected.has(name);
      return h("button", { type: "button", class: `card-button${pressed ? " selected" : ""}`, "aria-pressed": String(pressed), dataset: { pick: name },
        onclick: () => {
          if (view.selected.has(name)) view.selected.delete(name);
          else view.selected.add(name);
          drawTable(board, view);
        } }, cardEl);
    },
  };
  const current = state.current_player ?? obs.current_player;
  const scores = state.scores || obs.scores || obs.totals || [];
  board.append(h("ol", { class: "seats", "aria-label": t("table.seats") },
    Array.from({ length: players }, (_, seat) => h("li", { class: `seat${seat === current ? " current" : ""}${seat === view.seat ? " mine" : ""}`,
      "aria-current": seat === current ? "true" : null },
      h("strong", {}, ctx.seatName(seat)),
      seat === current && !state.terminal ? h("span", { class: "turn" }, t("seat.turn")) : null,
      h("span", { class: "score" }, scoreText(gameName, scores[seat] ?? 0)),
      game.seatFacts(obs, seat, ctx).map((fact) => h("span", { class: "fact" }, fact))))));
  board.append(h("div", { class: "board", id: "board" }, game.board(obs, ctx)));
  const drawAction = (a) => game.action(a, ctx) ?? generic.action(a, ctx);

  // The legal actions, the hint, the end.
  const panel = h("section", { class: "panel actions-panel", "aria-label": view.watching ? t("watch.title") : t("table.actions") });
  if (state.terminal) {
    panel.append(drawEnd({ winners: state.winners || (view.end && view.end.winners) || [], scores: state.scores || [] },
      view.seat, ctx, { table: view.table, invite: view.invite }));
  } else if (view.watching) {
    // A spectator has no moves: whose turn it is, when the game has turns.
    panel.append(h("h3", {}, t("watch.title")),
      h("p", { class: "waiting" }, typeof current === "number" && current >= 0
        ? t("watch.turn", { seat: ctx.seatName(current) }) : t("watch.live")));
  } else if (game.realtime && game.live) {
    // A real-time table: its game draws the moves anyone may make at any moment.
    const send = (message) => {
      if (view.sent) return;
      if (connection.send({ ...message, id: connection.nextId(), version: state.version })) {
        view.sent = true;
        drawTable(board, view);
      }
    };
    const moves = game.live(obs, ctx, { send, sent: view.sent });
    if (view.error) panel.append(banner(errorText(view.error)));
    panel.append(h("div", { class: "live" }, moves));
  } else if (legal.length) {
    const selected = [...view.selected];
    const matching = selected.length
      ? legal.filter((a) => selected.every((card) => game.cardsOf(a).includes(card)))
      : legal;
    panel.append(h("h3", {}, t("table.your.turn")));
    if (view.error) panel.append(banner(errorText(view.error)));
    let grouped = matching;
    if (game.group) {
      // Some games' moves come in groups (Four Pack: whom to ask): pick the group first.
      const groups = new Map();
      for (const a of matching) {
        const g = game.group(a, ctx);
        if (g && !groups.has(g.key)) groups.set(g.key, g);
      }
      if (groups.size) {
        if (!groups.has(view.group)) view.group = groups.keys().next().value;
        panel.append(h("div", { class: "groups", role: "group" }, [...groups.values()].map((g) => h("button", {
          type: "button", class: "group", "aria-pressed": String(g.key === view.group), dataset: { group: g.key },
          onclick: () => { view.group = g.key; drawTable(board, view); } }, g.label))));
        grouped = matching.filter((a) => (game.group(a, ctx) || {}).key === view.group);
      }
    }
    const shown = grouped.slice(0, 40);
    panel.append(h("div", { class: "actions", id: "actions" }, shown.map((a) => h("button", {
      type: "button", class: `action${view.hint && view.hint.action === a.action ? " hinted" : ""}`,
      dataset: { action: a.action }, disabled: view.sent,
      onclick: () => {
        if (view.sent) return;
        if (connection.act(state.version, a.action)) {
          view.sent = true;
          drawTable(board, view);
        }
      } }, drawAction(a)))));
    if (grouped.length > shown.length) panel.append(h("p", { class: "note" }, t("table.more", { count: num(grouped.length - shown.length) })));
    if (selected.length && !matching.length) panel.append(h("p", { class: "note" }, t("table.no.match")));
    panel.append(h("div", { class: "tools" },
      h("button", { type: "button", id: "hint", onclick: () => connection.send({ type: "hint", id: `h${Date.now().toString(36)}` }) }, t("table.hint")),
      selected.length ? h("button", { type: "button", onclick: () => { view.selected.clear(); drawTable(board, view); } }, t("table.clear")) : null));
    if (view.hint) {
      const hinted = legal.find((a) => a.action === view.hint.action);
      panel.append(h("p", { class: "hint", role: "status" }, t("table.hint.says"), " ", hinted ? drawAction(hinted) : t("table.hint.none")));
    }
  } else {
    panel.append(h("p", { class: "waiting" }, current >= 0 ? t("table.waiting", { seat: ctx.seatName(current) }) : t("table.waiting.any")));
  }
  board.append(panel);
  board.append(drawHistory(state, game, ctx));
}

/** The end of a match: the winners and every seat's score, and links on (the replay, unless it is one). */
function drawEnd({ winners, scores }, seat, ctx, { table = null, invite = null } = {}) {
  const won = seat !== null && seat !== undefined && winners.includes(seat);
  const result = won ? t("end.won")
    : winners.length ? t("end.lost", { seats: winners.map((s) => ctx.seatName(s)).join(", ") }) : t("end.draw");
  return h("div", { class: "end", id: "end" },
    h("h3", {}, t("end.title")),
    h("p", { class: "result" }, result),
    h("table", {}, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("end.seat")), h("th", { scope: "col" }, t("end.score")))),
      h("tbody", {}, scores.map((score, s) => h("tr", { class: winners.includes(s) ? "winner" : "" },
        h("th", { scope: "row" }, ctx.seatName(s)), h("td", {}, num(score)))))),
    h("div", { class: "links" },
      table ? h("a", { href: pageLink("replay", table, invite), class: "button", id: "replay-link" }, t("end.replay")) : null,
      h("a", { href: "#/", class: "button primary" }, t("end.again"))));
}

function drawHistory(state, game, ctx) {
  const items = (state.history || []).slice(-12).reverse();
  return h("details", { class: "panel history", open: true },
    h("summary", {}, t("table.history")),
    items.length
      ? h("ol", { reversed: true }, items.map((item) => h("li", {}, historyLine(item, game, ctx))))
      : h("p", { class: "empty" }, t("table.history.none")));
}

function historyLine(record, game, ctx) {
  if (!record || typeof record !== "object") return t("h.other");
  return game.history(record, ctx) || commonHistory(record, ctx) || t("h.other");
}

// -- the replay of a finished match ------------------------------------------------------

/** A finished match, record by record (``GET /api/tables/<id>/replay``): step 0 is the start,
 *  step k shows the k-th public record, the last step the end with the scores. */
async function showReplay(tableId, invite = null) {
  const root = clear(main());
  rerender = () => showReplay(tableId, invite);
  root.append(h("p", { class: "loading" }, t("lobby.loading")));
  let replay;
  let game;
  try {
    replay = await api.getReplay(tableId, invite);
    await loadGames().catch(() => []);
    game = await rendererFor(gameEntry(replay.game));
  } catch (error) {
    clear(root).append(h("section", { class: "panel" }, banner(errorText(error)), h("div", { class: "links" },
      error && error.code === "not_finished"
        ? h("a", { href: pageLink("watch", tableId, invite), class: "button", id: "watch-link" }, t("lobby.watch")) : null,
      h("a", { href: "#/", class: "button" }, t("lobby.back")))));
    return;
  }
  useDeck(replay.deck);
  const records = Array.isArray(replay.records) ? replay.records : [];
  const state = { step: 0, boards: new Map(), invite }; // boards: step -> the board's answer (or its promise)
  const draw = () => drawReplay(clear(root), tableId, replay, records, game, state);
  rerender = draw; // a new language redraws the same step
  draw();
}

function drawReplay(root, tableId, replay, records, game, state) {
  const seats = replay.seats || [];
  const stored = seatOf(tableId);
  const mine = stored ? stored.seat : null;
  const ctx = {
    game: replay.game,
    seat: mine,
    players: seats.length || (replay.scores || []).length,
    legal: [],
    seatName: seatNamer(seats, mine),
    selectable: (cardEl) => cardEl,
  };
  const count = records.length;
  const button = (id, key, step) => h("button", { type: "button", id, onclick: () => go(step()) }, t(key));
  const first = button("replay-first", "replay.first", () => 0);
  const previous = button("replay-previous", "replay.previous", () => state.step - 1);
  const next = button("replay-next", "replay.next", () => state.step + 1);
  const last = button("replay-last", "replay.last", () => count);
  const slider = h("input", { type: "range", id: "replay-slider", min: 0, max: count, step: 1, value: state.step,
    "aria-label": t("replay.slider"), oninput: (event) => go(Number(event.target.value)) });
  const where = h("span", { id: "replay-step", role: "status" });
  const now = h("div", { id: "replay-now" });
  const finish = h("div", { id: "replay-end" });
  const earlier = h("div", {});
  const seatList = h("ol", { class: "seats", "aria-label": t("table.seats") });
  const board = h("div", { class: "board", id: "replay-board", dataset: { step: -1 }, "aria-live": "polite" });
  const recordSteps = Array.isArray(replay.record_steps) ? replay.record_steps : [];

  // Each seat, with its score and facts at the step on the board (none yet: names only).
  function drawSeats(shown) {
    const obs = shown ? shown.view || {} : null;
    const current = shown ? shown.current_player : null;
    clear(seatList).append(...Array.from({ length: ctx.players }, (_, seat) => h("li", {
      class: `seat${seat === mine ? " mine" : ""}${seat === current ? " current" : ""}`,
      "aria-current": seat === current ? "true" : null },
    h("strong", {}, ctx.seatName(seat)),
    obs ? h("span", { class: "score" }, scoreText(replay.game, (shown.scores || [])[seat] ?? 0)) : null,
    obs ? game.seatFacts(obs, seat, ctx).map((fact) => h("span", { class: "fact" }, fact)) : null)));
  }

  // The public table after the actions up to this step (the server plays the match again to it).
  function showBoard(step) {
    if (!replay.boards) return;
    const boardStep = step === 0 ? 0 : recordSteps[step - 1] ?? replay.version;
    let answer = state.boards.get(boardStep);
    if (!answer) {
      answer = api.getReplayBoard(tableId, boardStep, state.invite);
      state.boards.set(boardStep, answer);
      answer.catch(() => state.boards.delete(boardStep)); // asked again next time
    }
    board.setAttribute("aria-busy", "true");
    answer.then((shown) => {
      if (state.step !== step) return; // another step was chosen meanwhile
      board.removeAttribute("aria-busy");
      board.dataset.step = String(boardStep);
      append(clear(board), game.board(shown.view || {}, ctx));
      drawSeats(shown);
    }, (error) => {
      if (state.step !== step) return;
      board.removeAttribute("aria-busy");
      clear(board).append(banner(errorText(error)));
    });
  }

  function go(step) {
    state.step = Math.max(0, Math.min(count, step));
    update();
    if (document.activeElement && document.activeElement.disabled) slider.focus(); // the first or last step
  }

  function update() {
    const step = state.step;
    slider.value = String(step);
    first.disabled = previous.disabled = step === 0;
    next.disabled = last.disabled = step === count;
    where.textContent = t("replay.step", { step: num(step), count: num(count) });
    const record = step > 0 ? records[step - 1] : null;
    clear(now).append(record
      ? h("p", { class: "record", id: "replay-record", dataset: { index: step - 1, kind: String(record.kind ?? "") } },
        historyLine(record, game, ctx))
      : h("p", { class: "record empty", id: "replay-record", dataset: { index: -1 } }, t("replay.start")));
    // The records before this one, newest first, numbered as in the match.
    const before = records.slice(Math.max(0, step - 13), Math.max(0, step - 1)).reverse();
    clear(earlier).append(before.length
      ? h("ol", { reversed: true, start: step - 1 }, before.map((r) => h("li", {}, historyLine(r, game, ctx))))
      : h("p", { class: "empty" }, t("table.history.none")));
    showBoard(step);
    clear(finish);
    if (step === count) {
      finish.append(h("section", { class: "panel actions-panel" },
        drawEnd({ winners: replay.winners || [], scores: replay.scores || [] }, mine, ctx)));
    }
  }

  root.append(
    h("header", { class: "table-head" },
      h("h2", {}, t("replay.title", { game: gameTitle(replay.game) })),
      h("a", { href: "#/", class: "button" }, t("lobby.back"))),
    seatList,
    replay.boards ? h("section", { class: "panel replay-table", "aria-label": t("replay.board") }, board) : null,
    h("section", { class: "panel replay", id: "replay", "aria-label": t("replay.controls") },
      h("div", { class: "replay-controls", role: "group", "aria-label": t("replay.controls") },
        first, previous, next, last),
      h("div", { class: "replay-slider" }, slider, where),
      h("h3", {}, t("replay.record")),
      now),
    finish,
    h("details", { class: "panel history", open: true }, h("summary", {}, t("replay.earlier")), earlier));
  drawSeats(null);
  update();
}

// -- start ---------------------------------------------------------------------------

async function start() {
  await setLanguage(preferredLanguage());
  await loadCardData();
  renderHeader();
  window.addEventListener("hashchange", route);
  route();
}

start();
