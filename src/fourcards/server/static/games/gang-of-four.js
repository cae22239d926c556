// Gang of Four's table: drawn from the view's and the moves' structured fields.

import { h } from "fourcards/dom.js";
import { t, num } from "fourcards/i18n.js";
import { gofCard } from "fourcards/cards.js";
import { zone, list, cardsOf } from "fourcards/generic.js";

export default {
  board(obs, ctx) {
    const table = list(obs.table);
    const parts = [
      zone(t("gof.table"), table.length ? table.map(gofCard) : h("p", { class: "empty" }, t("gof.table.empty"))),
    ];
    if (table.length && obs.table_player >= 0) parts.push(h("p", { class: "note" }, t("gof.table.by", { seat: ctx.seatName(obs.table_player) })));
    if (obs.must_lead_m1) parts.push(h("p", { class: "note" }, t("gof.lead.m1")));
    if (obs.exchange) {
      const ex = obs.exchange;
      parts.push(h("p", { class: "note" }, t("gof.exchange", { loser: ctx.seatName(ex.loser), winner: ctx.seatName(ex.winner) }),
        " ", ex.given ? gofCard(ex.given) : null, ex.returned ? [" ⇄ ", gofCard(ex.returned)] : null));
    }
    // A spectator's view has no hand.
    if (Array.isArray(obs.hand)) parts.push(zone(t("hand.yours"), obs.hand.map((c) => ctx.selectable(gofCard(c), c))));
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
  action(a) {
    switch (a.kind) {
      case "pass": return [t("act.pass")];
      case "give_back": return [t("gof.give"), " ", gofCard(a.card)];
      case "play": return [t("gof.play"), " ", list(a.cards).map(gofCard), a.announce ? [" ", t("gof.announce")] : null];
      default: return null;
    }
  },
  cardsOf,
  history(r, ctx) {
    switch (r.kind) {
      case "round_start": return [t("h.round.start", { round: num(r.round), dealer: ctx.seatName(r.dealer), leader: ctx.seatName(r.leader) })];
      case "card_given": return [t(r.automatic ? "gof.h.given.highest" : "gof.h.given", { giver: ctx.seatName(r.giver), receiver: ctx.seatName(r.receiver) }), " ", gofCard(r.card)];
      case "played": return [t("gof.h.played", { seat: ctx.seatName(r.player) }), " ", list(r.cards).map(gofCard), r.announced ? [" ", t("gof.announce")] : null];
      case "passed": return [t("gof.h.passed", { seat: ctx.seatName(r.player) })];
      case "round_end": return [t("h.round.end.out", { round: num(r.round), seat: ctx.seatName(r.winner) })];
      default: return null;
    }
  },
};
