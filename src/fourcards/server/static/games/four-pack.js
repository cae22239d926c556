// Four Pack's table: drawn from the view's and the moves' structured fields.

import { h } from "fourcards/dom.js";
import { t, num } from "fourcards/i18n.js";
import { elementCard, elementName, familyName, cardBack } from "fourcards/cards.js";
import { zone, list } from "fourcards/generic.js";

export default {
  board(obs, ctx) {
    const parts = [];
    list(obs.families_down).forEach((families, seat) => {
      if (list(families).length) {
        parts.push(zone(t("fp.families.of", { seat: ctx.seatName(seat) }),
          list(families).map((f) => h("span", { class: "meld" }, [1, 2, 3, 4].map((n) => elementCard(`${f}${n}`))))));
      }
    });
    const asks = list(obs.asks).slice(-6).reverse();
    if (asks.length) {
      parts.push(h("section", { class: "zone" }, h("h3", {}, t("fp.asks")),
        h("ul", { class: "asks" }, asks.map((a) => h("li", {},
          t(a.success ? "fp.ask.yes" : "fp.ask.no", { asker: ctx.seatName(a.asker), target: ctx.seatName(a.target), card: elementName(a.card) }))))));
    }
    // One asks for cards one does not hold: the hand is not a selection. A spectator's view has none.
    if (Array.isArray(obs.hand)) parts.push(zone(t("hand.yours"), obs.hand.map((c) => elementCard(c))));
    else {
      parts.push(zone(t("fp.hands"), list(obs.hand_sizes).map((count, seat) => h("figure", { class: "revealed" },
        cardBack(count), h("figcaption", {}, ctx.seatName(seat))))));
    }
    return parts;
  },
  seatFacts(obs, seat) {
    return obs.hand_sizes ? [t("seat.cards", { count: num(obs.hand_sizes[seat]) })] : [];
  },
  action(a) {
    return a.kind === "ask" ? [elementCard(a.card)] : null;
  },
  group(a, ctx) {
    // Moves are grouped by whom they ask: choose the player, then the card.
    return a.kind === "ask" ? { key: String(a.target), label: t("fp.ask", { seat: ctx.seatName(a.target) }) } : null;
  },
  cardsOf() {
    return [];
  },
  history(r, ctx) {
    switch (r.kind) {
      case "dealt": return [t("h.dealt", { dealer: ctx.seatName(r.dealer), seat: ctx.seatName(r.first) })];
      case "asked": return [t(r.success ? "fp.ask.yes" : "fp.ask.no", { asker: ctx.seatName(r.asker), target: ctx.seatName(r.target), card: elementName(r.card) })];
      case "laid_down": return [t("fp.h.laid", { seat: ctx.seatName(r.player), family: familyName(r.family) })];
      default: return null;
    }
  },
};
