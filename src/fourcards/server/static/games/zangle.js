// Zangle's table: drawn from the view's and the moves' structured fields.

import { h } from "fourcards/dom.js";
import { t, num } from "fourcards/i18n.js";
import { zangleCard } from "fourcards/cards.js";
import { zone, list } from "fourcards/generic.js";

/** A Zangle ({target: [kind, place], pieces: [[kind, place], ...]}) as its equation of cards. */
export function equation(zangle) {
  if (!zangle || !Array.isArray(zangle.target)) return null;
  const [kind, place] = zangle.target;
  return h("span", { class: "zangle-eq" }, zangleCard(kind, place), h("span", { class: "op" }, "="),
    list(zangle.pieces).map(([piece, from], i) => [i ? h("span", { class: "op" }, "+") : null, zangleCard(piece, from)]));
}

/** The centre and every seat's cards (Zangle and Zangle Speedster). */
export function zangleBoard(obs, ctx) {
  const parts = [zone(t("zangle.centre"), list(obs.centre).map((c) => zangleCard(c)))];
  parts.push(h("p", { class: "note" }, t("zangle.centre.pile", { count: num(obs.centre_pile ?? 0) }),
    obs.bonus ? [" · ", t("zangle.bonus")] : null));
  list(obs.cards).forEach((cards, seat) => {
    const title = seat === ctx.seat ? t("zangle.cards.yours") : t("zangle.cards.of", { seat: ctx.seatName(seat) });
    parts.push(zone(title, list(cards).length ? list(cards).map((c) => zangleCard(c)) : h("p", { class: "empty" }, t("zangle.none"))));
  });
  return parts;
}

export default {
  board: zangleBoard,
  seatFacts(obs, seat) {
    const facts = [];
    if (obs.piles) facts.push(t("zangle.pile", { count: num(obs.piles[seat]) }));
    if (obs.hits) facts.push(t("zangle.hits", { count: num(obs.hits[seat]) }));
    return facts;
  },
  action(a) {
    return a.kind === "zangle" ? [equation(a)] : null;
  },
  cardsOf() {
    return [];
  },
  history(r, ctx) {
    switch (r.kind) {
      case "made": return [t("zangle.h.made", { seat: ctx.seatName(r.player) }), " ", equation(r.zangle)];
      case "hit": return [t("zangle.h.hit", { seat: ctx.seatName(r.player) }), " ", zangleCard(r.card)];
      case "turn_ended": return [t("zangle.h.turn.ended", { seat: ctx.seatName(r.player) })];
      case "round_end": return [t("h.round.end", { round: num(r.round) })];
      default: return null;
    }
  },
};
