// Each game's table: the board drawn from the seat's observation, and each
// legal action drawn from its text, in the page's language.

import { h } from "./dom.js";
import { t, num } from "./i18n.js";
import { gofCard, fcCard, fcName, zangleCard, elementCard, categoryName, elementName, familyName, formatValue, deck } from "./cards.js";

const words = (text) => String(text).trim().split(/\s+/).filter(Boolean);

function zone(title, ...content) {
  return h("section", { class: "zone" }, h("h3", {}, title), h("div", { class: "cards" }, content));
}

function seatName(seat, ctx) {
  return ctx.seatName(seat);
}

function list(value) {
  return Array.isArray(value) ? value : [];
}

// -- Gang of Four ------------------------------------------------------------------

function gofCards(value) {
  // A combination or hand: a list of card names, or a string "G3 Y4 R5".
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === "object" && value.cards) return gofCards(value.cards);
  return words(value);
}

const gangOfFour = {
  board(obs, ctx) {
    const table = gofCards(obs.table);
    const parts = [
      zone(t("gof.table"), table.length ? table.map(gofCard) : h("p", { class: "empty" }, t("gof.table.empty"))),
    ];
    if (table.length && obs.table_player >= 0) parts.push(h("p", { class: "note" }, t("gof.table.by", { seat: seatName(obs.table_player, ctx) })));
    if (obs.must_lead_m1) parts.push(h("p", { class: "note" }, t("gof.lead.m1")));
    if (obs.exchange) {
      const ex = obs.exchange;
      parts.push(h("p", { class: "note" }, t("gof.exchange", { loser: seatName(ex.loser, ctx), winner: seatName(ex.winner, ctx) }),
        " ", ex.given ? gofCard(ex.given) : null, ex.returned ? [" ⇄ ", gofCard(ex.returned)] : null));
    }
    parts.push(zone(t("hand.yours"), gofCards(obs.hand).map((c) => ctx.selectable(gofCard(c), c))));
    return parts;
  },
  seatFacts(obs, seat) {
    const facts = [];
    if (obs.hand_sizes) facts.push(t("seat.cards", { count: num(obs.hand_sizes[seat]) }));
    if (list(obs.passed)[seat]) facts.push(t("gof.passed"));
    if (list(obs.announced)[seat]) facts.push(t("gof.last.card"));
    if (list(obs.out)[seat]) facts.push(t("gof.out"));
    return facts;
  },
  action(text) {
    const w = words(text);
    if (w[0] === "pass") return [t("act.pass")];
    if (w[0] === "give") return [t("gof.give"), " ", gofCard(w[1])];
    const announce = w[w.length - 1] === "!";
    const cards = announce ? w.slice(0, -1) : w;
    return [t("gof.play"), " ", cards.map(gofCard), announce ? [" ", t("gof.announce")] : null];
  },
  history(r, ctx) {
    switch (r.kind) {
      case "round_start": return [t("h.round.start", { round: num(r.round), dealer: seatName(r.dealer, ctx), leader: seatName(r.leader, ctx) })];
      case "card_given": return [t(r.automatic ? "gof.h.given.highest" : "gof.h.given", { giver: seatName(r.giver, ctx), receiver: seatName(r.receiver, ctx) }), " ", gofCard(r.card)];
      case "played": return [t("gof.h.played", { seat: seatName(r.player, ctx) }), " ", gofCards(r.combo).map(gofCard), r.announced ? [" ", t("gof.announce")] : null];
      case "passed": return [t("gof.h.passed", { seat: seatName(r.player, ctx) })];
      case "round_end": return [t("h.round.end.out", { round: num(r.round), seat: seatName(r.winner, ctx) })];
      default: return null;
    }
  },
  cardsOf(text) {
    const w = words(text);
    if (w[0] === "pass") return [];
    if (w[0] === "give") return [w[1]];
    return w.filter((x) => x !== "!");
  },
};

// -- Four Color Cards ----------------------------------------------------------------

const fourColor = {
  board(obs, ctx) {
    const parts = [];
    if (obs.offer) {
      const o = obs.offer;
      parts.push(zone(t(`fc.offer.${o.source}`, { seat: seatName(o.player, ctx) }), fcCard(o.card)));
    }
    parts.push(h("p", { class: "note" }, t("fc.stock", { count: num(obs.stock ?? 0) })));
    const exposed = list(obs.exposed);
    exposed.forEach((melds, seat) => {
      if (list(melds).length) {
        parts.push(zone(t("fc.melds.of", { seat: seatName(seat, ctx) }),
          list(melds).map((meld) => h("span", { class: "meld" }, list(meld).map(fcCard)))));
      }
    });
    if (list(obs.discards).length) parts.push(zone(t("fc.discards"), list(obs.discards).map(fcCard)));
    parts.push(zone(t("hand.yours"), list(obs.hand).map((c) => ctx.selectable(fcCard(c), fcName(c)))));
    return parts;
  },
  seatFacts(obs, seat) {
    return obs.hand_sizes ? [t("seat.cards", { count: num(obs.hand_sizes[seat]) })] : [];
  },
  action(text) {
    const w = words(text);
    if (w[0] === "discard") return [t("fc.discard"), " ", fcCard(w[1])];
    if (w[0] === "pass") return [t("act.pass")];
    if (w[0] === "hu") return [t("fc.hu")];
    if (w[0] === "claim") return [t("fc.claim"), " ", w.slice(1).map(fcCard)];
    return [text];
  },
  history(r, ctx) {
    switch (r.kind) {
      case "dealt": return [t("h.round.first", { round: num(r.round), seat: seatName(r.first, ctx) })];
      case "discarded": return [t("fc.h.discarded", { seat: seatName(r.player, ctx) }), " ", fcCard(r.card)];
      case "turned_up": return [t("fc.h.turned", { seat: seatName(r.player, ctx) }), " ", fcCard(r.card)];
      case "claimed": return [t("fc.h.claimed", { seat: seatName(r.player, ctx) }), " ", h("span", { class: "meld" }, words(r.meld).map(fcCard))];
      case "round_end": {
        const reason = { hu: "hu", "only Generals left": "generals", "no card left to discard": "empty", "the stock ran out": "stock" }[r.reason] || "other";
        return r.winner >= 0
          ? [t("fc.h.round.won", { round: num(r.round), seat: seatName(r.winner, ctx), points: num(r.points) }), " ", t(`fc.reason.${reason}`)]
          : [t("fc.h.round.drawn", { round: num(r.round) }), " ", t(`fc.reason.${reason}`)];
      }
      default: return null;
    }
  },
  cardsOf(text) {
    const w = words(text);
    return w[0] === "discard" || w[0] === "claim" ? w.slice(1) : [];
  },
};

// -- Zangle ------------------------------------------------------------------------

const PIECE = /^\s*([A-Za-z0-9]+)\s*\(\s*(centre|own)\s*\)\s*$/;

function parseZangle(text) {
  const [target, pieces] = String(text).split("=");
  const m = PIECE.exec(target || "");
  if (!m || pieces === undefined) return null;
  return { target: [m[1], m[2]], pieces: pieces.split("+").map((p) => PIECE.exec(p)).filter(Boolean).map((p) => [p[1], p[2]]) };
}

const zangle = {
  board(obs, ctx) {
    const parts = [zone(t("zangle.centre"), list(obs.centre).map((c) => zangleCard(c)))];
    parts.push(h("p", { class: "note" }, t("zangle.centre.pile", { count: num(obs.centre_pile ?? 0) }),
      obs.bonus ? [" · ", t("zangle.bonus")] : null));
    list(obs.cards).forEach((cards, seat) => {
      const title = seat === ctx.seat ? t("zangle.cards.yours") : t("zangle.cards.of", { seat: seatName(seat, ctx) });
      parts.push(zone(title, list(cards).length ? list(cards).map((c) => zangleCard(c)) : h("p", { class: "empty" }, t("zangle.none"))));
    });
    return parts;
  },
  seatFacts(obs, seat) {
    const facts = [];
    if (obs.piles) facts.push(t("zangle.pile", { count: num(obs.piles[seat]) }));
    if (obs.hits) facts.push(t("zangle.hits", { count: num(obs.hits[seat]) }));
    return facts;
  },
  action(text) {
    const z = parseZangle(text);
    if (!z) return [text];
    return [h("span", { class: "zangle-eq" }, zangleCard(z.target[0], z.target[1]), h("span", { class: "op" }, "="),
      z.pieces.map(([kind, place], i) => [i ? h("span", { class: "op" }, "+") : null, zangleCard(kind, place)]))];
  },
  history(r, ctx) {
    switch (r.kind) {
      case "made": return [t("zangle.h.made", { seat: seatName(r.player, ctx) }), " ", zangle.action(r.zangle)];
      case "hit": return [t("zangle.h.hit", { seat: seatName(r.player, ctx) }), " ", zangleCard(r.card)];
      case "turn_ended": return [t("zangle.h.turn.ended", { seat: seatName(r.player, ctx) })];
      case "round_end": return [t("h.round.end", { round: num(r.round) })];
      default: return null;
    }
  },
  cardsOf() {
    return [];
  },
};

// -- Four Pack -----------------------------------------------------------------------

const fourPack = {
  board(obs, ctx) {
    const parts = [];
    list(obs.families_down).forEach((families, seat) => {
      if (list(families).length) {
        parts.push(zone(t("fp.families.of", { seat: seatName(seat, ctx) }),
          list(families).map((f) => h("span", { class: "meld" }, [1, 2, 3, 4].map((n) => elementCard(`${f}${n}`))))));
      }
    });
    const asks = list(obs.asks).slice(-6).reverse();
    if (asks.length) {
      parts.push(h("section", { class: "zone" }, h("h3", {}, t("fp.asks")),
        h("ul", { class: "asks" }, asks.map((a) => h("li", {},
          t(a.success ? "fp.ask.yes" : "fp.ask.no", { asker: seatName(a.asker, ctx), target: seatName(a.target, ctx), card: elementName(a.card) }))))));
    }
    parts.push(zone(t("hand.yours"), list(obs.hand).map((c) => ctx.selectable(elementCard(c), c))));
    return parts;
  },
  seatFacts(obs, seat) {
    return obs.hand_sizes ? [t("seat.cards", { count: num(obs.hand_sizes[seat]) })] : [];
  },
  action(text) {
    const m = /^ask P(\d+) for (\w+)$/.exec(String(text).trim());
    return m ? [elementCard(m[2])] : [text];
  },
  group(text, ctx) {
    // Moves are grouped by whom they ask: choose the player, then the card.
    const m = /^ask P(\d+) for/.exec(String(text).trim());
    return m ? { key: m[1], label: t("fp.ask", { seat: seatName(Number(m[1]), ctx) }) } : null;
  },
  history(r, ctx) {
    switch (r.kind) {
      case "dealt": return [t("h.dealt", { dealer: seatName(r.dealer, ctx), seat: seatName(r.first, ctx) })];
      case "asked": return [t(r.success ? "fp.ask.yes" : "fp.ask.no", { asker: seatName(r.asker, ctx), target: seatName(r.target, ctx), card: elementName(r.card) })];
      case "laid_down": return [t("fp.h.laid", { seat: seatName(r.player, ctx), family: familyName(r.family) })];
      default: return null;
    }
  },
  cardsOf() {
    return [];
  },
};

// -- Duelo ---------------------------------------------------------------------------

const duelo = {
  board(obs, ctx) {
    const parts = [];
    parts.push(zone(t("duelo.top"), obs.top_card ? elementCard(obs.top_card, { values: true }) : h("p", { class: "empty" }, t("duelo.no.card"))));
    if (obs.table) parts.push(h("p", { class: "note" }, t("duelo.table", { count: num(obs.table) })));
    const hands = list(obs.hands).filter((x) => x && x.revealed).slice(-3).reverse();
    for (const hand of hands) {
      const winner = hand.winner >= 0 ? t("duelo.won.by", { seat: seatName(hand.winner, ctx) }) : t("duelo.tie");
      parts.push(h("section", { class: "zone" },
        h("h3", {}, t("duelo.hand", { number: num(hand.number), category: categoryName(hand.category) }), " — ", winner),
        h("div", { class: "cards" }, list(hand.revealed).map(([seat, card]) => h("figure", { class: "revealed" },
          elementCard(card),
          h("figcaption", {}, seatName(seat, ctx), ": ", formatValue(hand.category, deck().cards[card]?.values?.[hand.category] ?? "?")))))));
    }
    return parts;
  },
  seatFacts(obs, seat) {
    return obs.pile_sizes ? [t("duelo.pile", { count: num(obs.pile_sizes[seat]) })] : [];
  },
  action(text) {
    const m = /^call (\w+)$/.exec(String(text).trim());
    return m ? [t("duelo.call", { category: categoryName(m[1]) })] : [text];
  },
  history(r, ctx) {
    switch (r.kind) {
      case "dealt": return [t("h.dealt", { dealer: seatName(r.dealer, ctx), seat: seatName(r.first, ctx) })];
      case "hand_played": return [t("duelo.hand", { number: num(r.number), category: categoryName(r.category) }), " — ",
        r.winner >= 0 ? t("duelo.won.by", { seat: seatName(r.winner, ctx) }) : t("duelo.tie")];
      case "table_taken": return [t("duelo.h.table.taken", { seat: seatName(r.player, ctx), count: num(list(r.taken).length) })];
      case "eliminated": return [t("duelo.h.eliminated", { seat: seatName(r.player, ctx) })];
      default: return null;
    }
  },
  cardsOf() {
    return [];
  },
};

// -- Zangle Speedster (real time: call a Zangle or hit, whenever you like) -----------------

const speedster = {
  realtime: true,
  board(obs, ctx) {
    const parts = zangle.board(obs, ctx);
    if (list(obs.playing).length && !list(obs.playing).includes(ctx.seat)) parts.unshift(h("p", { class: "note" }, t("sp.watching")));
    return parts;
  },
  seatFacts(obs, seat) {
    const facts = [];
    if (obs.piles) facts.push(t("zangle.pile", { count: num(obs.piles[seat]) }));
    if (obs.levels) facts.push(t("sp.level", { level: num(obs.levels[seat]) }));
    return facts;
  },
  action(text) {
    return zangle.action(text);
  },
  history(r, ctx) {
    const who = seatName(r.player, ctx);
    switch (r.kind) {
      case "zangle": return [t("zangle.h.made", { seat: who }), " ", zangle.action(r.detail)];
      case "hit": return [t("zangle.h.hit", { seat: who }), " ", zangleCard(r.detail)];
      case "false call": return [t("sp.h.false", { seat: who })];
      case "refused hit": return [t("sp.h.refused", { seat: who })];
      case "round end": return [t("sp.h.round.end", { seat: who })];
      case "game end": return [t("end.title")];
      default: return null;
    }
  },
  cardsOf() {
    return [];
  },
};

/** A history record any game may have (its game's history() gave nothing). */
export function commonHistory(r, ctx) {
  switch (r.kind) {
    case "match_end":
    case "game_end": return [t("h.game.end", { seats: list(r.winners).map((s) => seatName(s, ctx)).join(", ") })];
    case "round_end": return [t("h.round.end", { round: num(r.round) })];
    default: return [t("h.other")];
  }
}

export const GAMES = {
  "gang-of-four": gangOfFour,
  "four-color": fourColor,
  zangle,
  "four-pack": fourPack,
  duelo,
  "zangle-speedster": speedster,
};
