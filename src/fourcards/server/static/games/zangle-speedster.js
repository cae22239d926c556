// Zangle Speedster's table (real time: call a Zangle or take a hit whenever
// you like), drawn from the view's structured fields.

import { h } from "fourcards/dom.js";
import { t, num } from "fourcards/i18n.js";
import { zangleCard } from "fourcards/cards.js";
import { list } from "fourcards/generic.js";
import { equation, zangleBoard } from "./zangle.js";

function playing(obs, ctx) {
  return list(obs.playing).includes(ctx.seat);
}

export default {
  realtime: true,
  board(obs, ctx) {
    const parts = zangleBoard(obs, ctx);
    // A seat out of this round watches it (a spectator, with no seat, is told so by the page).
    if (ctx.seat !== null && ctx.seat !== undefined && list(obs.playing).length && !playing(obs, ctx)) {
      parts.unshift(h("p", { class: "note" }, t("sp.watching")));
    }
    return parts;
  },
  seatFacts(obs, seat) {
    const facts = [];
    if (obs.piles) facts.push(t("zangle.pile", { count: num(obs.piles[seat]) }));
    if (obs.levels) facts.push(t("sp.level", { level: num(obs.levels[seat]) }));
    return facts;
  },
  /** The moves panel: every Zangle this seat sees (each sent back by its own text) and the hit. */
  live(obs, ctx, { send, sent }) {
    if (!playing(obs, ctx)) return [h("h3", {}, t("sp.watching"))];
    const zangles = list(obs.zangles).filter((z) => z && typeof z === "object");
    return [
      h("h3", {}, t("sp.now")),
      h("div", { class: "actions", id: "actions" },
        zangles.slice(0, 40).map((z) => h("button", { type: "button", class: "action", disabled: sent,
          onclick: () => send({ type: "call", zangle: z.text }) }, equation(z))),
        h("button", { type: "button", class: "action hit", id: "hit", disabled: sent,
          onclick: () => send({ type: "hit" }) }, t("sp.hit"))),
      zangles.length ? null : h("p", { class: "note" }, t("sp.none")),
    ];
  },
  cardsOf() {
    return [];
  },
  history(r, ctx) {
    const who = ctx.seatName(r.player);
    switch (r.kind) {
      // A call's Zangle is drawn from its structured fields when the record has them, else
      // shown in the game's own notation (never read).
      case "zangle": return [t("zangle.h.made", { seat: who }), " ",
        equation(r.zangle) ?? equation(r.detail) ?? h("span", { class: "notation" }, String(r.detail ?? ""))];
      case "hit": return [t("zangle.h.hit", { seat: who }), " ", zangleCard(r.detail)];
      case "false call": return [t("sp.h.false", { seat: who })];
      case "refused hit": return [t("sp.h.refused", { seat: who })];
      case "round end": return [t("sp.h.round.end", { seat: who })];
      case "game end": return [t("end.title")];
      default: return null;
    }
  },
};
