// The generic table: draws any game's view from its JSON alone, knowing
// nothing of the game (the default of every game's page module, and the whole
// table of a game that has none).
//
// The view's shapes (see fourcards.views): card-like values are strings, so a
// list of strings is a row of cards; a list with one number or flag per seat
// is a fact next to each seat; a list with one list per seat is a zone per
// seat; other scalars are labelled facts; objects are labelled values. An
// action is drawn from its structured fields (its kind, its cards as cards,
// its other fields as values; with no field, the game's own text), and a
// history record by the kinds every game shares, else by its game's text.
// Nothing here reads a word of an action's or a record's text.

import { h } from "./dom.js";
import { t, has, num } from "./i18n.js";

/** Fields the page draws itself (the seats row marks the seat, under either name, and the turn). */
const DRAWN_BY_THE_PAGE = new Set(["seat", "player", "current_player"]);

export function list(value) {
  return Array.isArray(value) ? value : [];
}

export function zone(title, ...content) {
  return h("section", { class: "zone" }, h("h3", {}, title), h("div", { class: "cards" }, content));
}

/** A field's name for people: the catalog's word when it has one, else the name itself. */
export function fieldLabel(name) {
  const key = `view.${name}`;
  return has(key) ? t(key) : String(name).replaceAll("_", " ");
}

function isScalar(value) {
  return value === null || typeof value === "number" || typeof value === "boolean";
}

function isCardList(value) {
  return Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === "string");
}

/** One number or flag per seat (drawn next to each seat, not on the board). */
export function isPerSeat(value, players) {
  return Array.isArray(value) && players > 0 && value.length === players && value.every(isScalar)
    && value.some((x) => x !== null);
}

/** One list per seat: a zone for each seat. */
function isListPerSeat(value, players) {
  return Array.isArray(value) && players > 0 && value.length === players && value.every(Array.isArray);
}

/** A card-like value: a chip with its text, selectable when a legal move uses it. */
export function chip(card, ctx) {
  const text = String(card);
  const el = h("span", { class: "card chip", title: text, dataset: { card: text } }, h("span", { class: "face" }, text));
  return ctx && ctx.selectable ? ctx.selectable(el, text) : el;
}

function flag(value) {
  return value ? "✓" : "✗";
}

/** Any JSON value, drawn compactly (inside a zone, a move or a fact). */
export function drawValue(value, ctx, cards = true) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return flag(value);
  if (typeof value === "number") return num(value);
  if (typeof value === "string") return cards ? chip(value, ctx) : value;
  if (Array.isArray(value)) {
    if (!value.length) return h("span", { class: "empty" }, t("view.empty"));
    if (isCardList(value)) return h("span", { class: "cards" }, value.map((c) => chip(c, ctx)));
    return h("span", { class: "group" }, value.map((v) => h("span", { class: "item" }, drawValue(v, ctx, cards))));
  }
  if (typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
    return h("dl", { class: "fields" }, entries.map(([name, v]) => [
      h("dt", {}, name === "kind" ? "" : fieldLabel(name)),
      h("dd", {}, name === "kind" ? fieldLabel(v) : drawValue(v, ctx, cards)),
    ]));
  }
  return String(value);
}

/** The cards a move uses (its ``cards``, else its ``card``): a selection in the hand narrows the moves to these. */
export function cardsOf(action) {
  if (!action || typeof action !== "object") return [];
  if (Array.isArray(action.cards)) return action.cards.filter((c) => typeof c === "string");
  if (typeof action.card === "string") return [action.card];
  return [];
}

const ACTION_FIELDS_DRAWN = new Set(["action", "text", "kind", "cards", "card"]);

/** A history record any game may have (the games' shared kinds), or null. */
export function commonHistory(r, ctx) {
  switch (r.kind) {
    case "match_end":
    case "game_end":
      if (!Array.isArray(r.winners)) return null;
      return r.winners.length ? [t("h.game.end", { seats: r.winners.map((s) => ctx.seatName(s)).join(", ") })] : [t("end.draw")];
    case "round_end":
      return typeof r.round === "number" ? [t("h.round.end", { round: num(r.round) })] : null;
    default: return null;
  }
}

const generic = {
  /** Real-time tables draw their moves themselves (see ``live``); turn tables list the legal actions. */
  realtime: false,

  board(obs, ctx) {
    const facts = [];
    const parts = [];
    for (const [name, value] of Object.entries(obs || {})) {
      if (DRAWN_BY_THE_PAGE.has(name) || value === null || value === undefined) continue;
      if (isPerSeat(value, ctx.players)) continue; // next to each seat
      const label = fieldLabel(name);
      if (Array.isArray(value) && (value.length === 0 || isCardList(value))) {
        parts.push(zone(label, value.length ? value.map((c) => chip(c, ctx)) : h("p", { class: "empty" }, t("view.empty"))));
      } else if (isListPerSeat(value, ctx.players)) {
        value.forEach((items, seat) => {
          parts.push(zone(t("view.seat.field", { seat: ctx.seatName(seat), field: label }),
            items.length ? drawValue(items, ctx) : h("p", { class: "empty" }, t("view.empty"))));
        });
      } else if (Array.isArray(value) || typeof value === "object") {
        parts.push(zone(label, drawValue(value, ctx)));
      } else {
        facts.push(h("li", {}, h("span", { class: "label" }, label), " ", drawValue(value, ctx, false)));
      }
    }
    return [facts.length ? h("ul", { class: "facts" }, facts) : null, parts];
  },

  seatFacts(obs, seat, ctx) {
    const facts = [];
    for (const [name, value] of Object.entries(obs || {})) {
      if (DRAWN_BY_THE_PAGE.has(name) || !isPerSeat(value, ctx.players)) continue;
      const mine = value[seat];
      if (mine === null || mine === false) continue;
      facts.push(mine === true ? fieldLabel(name) : `${fieldLabel(name)}: ${num(mine)}`);
    }
    return facts;
  },

  action(a, ctx) {
    // Its fields but the ones drawn otherwise, and flags that are off.
    const fields = Object.entries(a).filter(([name, v]) => !ACTION_FIELDS_DRAWN.has(name) && v !== null && v !== undefined && v !== false);
    const cards = cardsOf(a);
    if (!fields.length && !cards.length && typeof a.text === "string" && a.text) return [a.text];
    return [
      h("span", { class: "kind" }, fieldLabel(a.kind ?? "")),
      fields.map(([name, v]) => [" ", h("span", { class: "field" }, fieldLabel(name), v === true ? null : [" ", drawValue(v, null, false)])]),
      cards.length ? [" ", cards.map((c) => chip(c))] : null,
    ];
  },

  cardsOf,

  history(r, ctx) {
    return commonHistory(r, ctx) || (typeof r.text === "string" && r.text ? [r.text] : [fieldLabel(r.kind ?? "")]);
  },
};

export default generic;
