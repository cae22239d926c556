// Duelo's table: drawn from the view's and the moves' structured fields.

import { h } from "fourcards/dom.js";
import { t, num } from "fourcards/i18n.js";
import { elementCard, categoryName, formatValue, deck, cardBack } from "fourcards/cards.js";
import { zone, list } from "fourcards/generic.js";

export default {
  board(obs, ctx) {
    const parts = [];
    // A seat's own top card (null when its pile is empty); a spectator's view has no such field.
    if (obs.top_card !== undefined) {
      parts.push(zone(t("duelo.top"), obs.top_card ? elementCard(obs.top_card, { values: true }) : h("p", { class: "empty" }, t("duelo.no.card"))));
    } else {
      // A spectator: every pile, face down.
      parts.push(zone(t("duelo.piles"), list(obs.pile_sizes).map((count, seat) => h("figure", { class: "revealed" },
        cardBack(count), h("figcaption", {}, ctx.seatName(seat))))));
    }
    if (obs.table) parts.push(h("p", { class: "note" }, t("duelo.table", { count: num(obs.table) })));
    const hands = list(obs.hands).filter((x) => x && x.revealed).slice(-3).reverse();
    for (const hand of hands) {
      const winner = hand.winner >= 0 ? t("duelo.won.by", { seat: ctx.seatName(hand.winner) }) : t("duelo.tie");
      parts.push(h("section", { class: "zone" },
        h("h3", {}, t("duelo.hand", { number: num(hand.number), category: categoryName(hand.category) }), " — ", winner),
        h("div", { class: "cards" }, list(hand.revealed).map(([seat, card]) => h("figure", { class: "revealed" },
          elementCard(card),
          h("figcaption", {}, ctx.seatName(seat), ": ", formatValue(hand.category, deck().cards[card]?.values?.[hand.category] ?? "?")))))));
    }
    return parts;
  },
  seatFacts(obs, seat) {
    return obs.pile_sizes ? [t("duelo.pile", { count: num(obs.pile_sizes[seat]) })] : [];
  },
  action(a) {
    return a.kind === "choose" ? [t("duelo.call", { category: categoryName(a.category) })] : null;
  },
  cardsOf() {
    return [];
  },
  history(r, ctx) {
    switch (r.kind) {
      case "dealt": return [t("h.dealt", { dealer: ctx.seatName(r.dealer), seat: ctx.seatName(r.first) })];
      case "hand_played": return [t("duelo.hand", { number: num(r.number), category: categoryName(r.category) }), " — ",
        r.winner >= 0 ? t("duelo.won.by", { seat: ctx.seatName(r.winner) }) : t("duelo.tie")];
      case "table_taken": return [t("duelo.h.table.taken", { seat: ctx.seatName(r.player), count: num(list(r.taken).length) })];
      case "eliminated": return [t("duelo.h.eliminated", { seat: ctx.seatName(r.player) })];
      default: return null;
    }
  },
};
