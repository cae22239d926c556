// Four Color Cards' table: drawn from the view's and the moves' structured fields.

import { h } from "fourcards/dom.js";
import { t, num } from "fourcards/i18n.js";
import { fcCard, fcName } from "fourcards/cards.js";
import { zone, list, cardsOf } from "fourcards/generic.js";

/** A round's end reason (a value of the record's ``reason`` field) -> its message's key. */
const REASONS = { hu: "hu", "only Generals left": "generals", "no card left to discard": "empty", "the stock ran out": "stock" };

/** The hand a winner shows ("e mostrare la sua mano"): each scored meld with its points
 * (concealed ones outlined), the winning card and the lucky card. */
function shownHand(r) {
  const melds = list(r.melds).map((m) => h("span", {
    class: `meld ${m.exposed ? "exposed" : "concealed"}`, dataset: { kind: m.kind },
    title: t(m.exposed ? "fc.meld.exposed" : "fc.meld.concealed", { points: num(m.points) }),
  }, list(m.cards).map(fcCard), h("span", { class: "meld-points" }, num(m.points))));
  const parts = [h("span", { class: "hu-hand" }, melds)];
  if (r.card) parts.push(" ", t("fc.h.won.with"), " ", fcCard(r.card));
  parts.push(" ");
  parts.push(r.lucky_card
    ? h("span", { class: "lucky" }, t("fc.h.lucky", { points: num(r.lucky) }), " ", fcCard(r.lucky_card))
    : h("span", { class: "lucky" }, t("fc.h.nolucky")));
  return h("span", { class: "shown-hand" }, parts);
}

export default {
  board(obs, ctx) {
    const parts = [];
    const last = obs.last_round;
    if (last && last.winner >= 0) {
      parts.push(zone(t("fc.last.round", { round: num(last.round), seat: ctx.seatName(last.winner), points: num(last.points),
        lucky: num(last.lucky) }), shownHand(last)));
    }
    if (obs.offer) {
      const o = obs.offer;
      parts.push(zone(t(`fc.offer.${o.source}`, { seat: ctx.seatName(o.player) }), fcCard(o.card)));
    }
    parts.push(h("p", { class: "note" }, t("fc.stock", { count: num(obs.stock ?? 0) })));
    list(obs.exposed).forEach((melds, seat) => {
      if (list(melds).length) {
        parts.push(zone(t("fc.melds.of", { seat: ctx.seatName(seat) }),
          list(melds).map((meld) => h("span", { class: "meld" }, list(meld).map(fcCard)))));
      }
    });
    if (list(obs.discards).length) parts.push(zone(t("fc.discards"), list(obs.discards).map(fcCard)));
    // A spectator's view has no hand.
    if (Array.isArray(obs.hand)) parts.push(zone(t("hand.yours"), obs.hand.map((c) => ctx.selectable(fcCard(c), fcName(c)))));
    return parts;
  },
  seatFacts(obs, seat) {
    return obs.hand_sizes ? [t("seat.cards", { count: num(obs.hand_sizes[seat]) })] : [];
  },
  action(a) {
    switch (a.kind) {
      case "discard": return [t("fc.discard"), " ", fcCard(a.card)];
      case "pass": return [t("act.pass")];
      case "hu": return [t("fc.hu")];
      case "claim": return [t("fc.claim"), " ", list(a.cards).map(fcCard)];
      default: return null;
    }
  },
  cardsOf,
  history(r, ctx) {
    switch (r.kind) {
      case "dealt": return [t("h.round.first", { round: num(r.round), seat: ctx.seatName(r.first) })];
      case "discarded": return [t("fc.h.discarded", { seat: ctx.seatName(r.player) }), " ", fcCard(r.card)];
      case "turned_up": return [t("fc.h.turned", { seat: ctx.seatName(r.player) }), " ", fcCard(r.card)];
      case "claimed": return [t("fc.h.claimed", { seat: ctx.seatName(r.player) }), " ", h("span", { class: "meld" }, list(r.cards).map(fcCard))];
      case "round_end": {
        const reason = REASONS[r.reason] || "other";
        return r.winner >= 0
          ? [t("fc.h.round.won", { round: num(r.round), seat: ctx.seatName(r.winner), points: num(r.points) }), " ", t(`fc.reason.${reason}`),
            " ", t("fc.h.shows", { seat: ctx.seatName(r.winner) }), " ", shownHand(r)]
          : [t("fc.h.round.drawn", { round: num(r.round) }), " ", t(`fc.reason.${reason}`)];
      }
      default: return null;
    }
  },
};
